package realollama

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// summary is the numbers of index's one-line summary.
type summary struct{ newTurns, embedded int }

var summaryRE = regexp.MustCompile(`(\d+) new turns, (\d+) embedded \(([^)]*)\)`)

func parseSummary(t *testing.T, r result) summary {
	t.Helper()
	m := summaryRE.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no index summary in: %s", r)
	}
	n, _ := strconv.Atoi(m[1])
	e, _ := strconv.Atoi(m[2])
	return summary{n, e}
}

// recallJSON is the part of 'deja recall --json' the tests read.
type recallJSON struct {
	RealizedMode   string `json:"realized_mode"`
	FallbackReason string `json:"fallback_reason"`
	Embedder       string `json:"embedder"`
	Results        []struct {
		SessionID string `json:"session_id"`
		Turn      int    `json:"turn"`
		User      string `json:"user"`
	} `json:"results"`
}

func (d *deja) recall(args ...string) (recallJSON, result) {
	d.t.Helper()
	r := d.run(append([]string{"recall", "--json"}, args...)...)
	var out recallJSON
	if r.code == 0 {
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			d.t.Fatalf("recall --json: %v\n%s", err, r)
		}
	}
	return out, r
}

// requireAllEmbedded fails unless every stored turn has a vector of the
// embedder identity.
func requireAllEmbedded(t *testing.T, d *deja, identity string) status {
	t.Helper()
	st := d.status()
	e, ok := st.embedder(identity)
	if !ok {
		t.Fatalf("status names no embedder %s: %+v", identity, st)
	}
	if st.Turns == 0 || e.Lacking != 0 || e.Turns != st.Turns {
		t.Fatalf("%s: %d of %d turns embedded, %d lacking; want every turn embedded", identity, e.Turns, st.Turns, e.Lacking)
	}
	return st
}

// TestCorpusIndexesAndRecallsThroughOllama indexes the real corpus through
// a model of 512-token context and one of 4096: every turn gets a vector
// (its long texts cut to fit, not refused), and semantic recall through
// Ollama finds a turn by its own question.
func TestCorpusIndexesAndRecallsThroughOllama(t *testing.T) {
	requireOllama(t)
	files := corpus(t)
	for _, model := range []string{model512, model4096} {
		t.Run(model, func(t *testing.T) {
			d := newDeja(t, shared.host, "ollama", model)
			before := shared.refusals()
			r := d.mustRun(append([]string{"index"}, files...)...)
			if n := shared.refusals() - before; n != 0 {
				t.Errorf("Ollama refused %d requests: deja sent texts longer than the model's context", n)
			}
			s := parseSummary(t, r)
			if s.newTurns == 0 || s.embedded != s.newTurns {
				t.Fatalf("%d new turns, %d embedded: want every turn embedded\n%s", s.newTurns, s.embedded, r)
			}
			if strings.Contains(r.stderr, "no vector") || strings.Contains(r.stderr, "failed") {
				t.Errorf("index warned: %s", r.stderr)
			}
			requireAllEmbedded(t, d, "ollama:"+model)

			// A turn found by a word, then by meaning: its own question
			// must come back among the first results.
			var want struct {
				SessionID string `json:"session_id"`
				Turn      int    `json:"turn"`
				User      string `json:"user"`
			}
			for _, word := range []string{"error", "function", "please", "add"} {
				kw, kr := d.recall("--mode", "keyword", "--limit", "20", word)
				if kr.code != 0 {
					continue
				}
				for _, res := range kw.Results {
					if len(strings.Fields(res.User)) >= 5 {
						want = res
						break
					}
				}
				if want.User != "" {
					break
				}
			}
			if want.User == "" {
				t.Fatal("keyword recall found no question of five words or more to look up by meaning")
			}
			q := strings.Join(strings.Fields(want.User), " ")
			if len(q) > 300 {
				q = q[:300]
			}
			sem, sr := d.recall("--mode", "semantic", "--limit", "5", q)
			if sr.code != 0 {
				t.Fatalf("semantic recall: %s", sr)
			}
			if sem.RealizedMode != "semantic" || sem.Embedder != "ollama:"+model || sem.FallbackReason != "" {
				t.Fatalf("semantic recall ran as %q with %s (%s), want semantic through ollama:%s", sem.RealizedMode, sem.Embedder, sem.FallbackReason, model)
			}
			found := false
			for _, res := range sem.Results {
				found = found || (res.SessionID == want.SessionID && res.Turn == want.Turn)
			}
			if !found {
				t.Errorf("semantic recall of %q does not return %s/%d among %d results", q, want.SessionID, want.Turn, len(sem.Results))
			}
		})
	}
}

// longHistory writes a history whose turns are far longer than 512 tokens:
// Japanese prose (a token per character, [UNK] for what the vocabulary
// lacks), punctuation-heavy code, and English.
func longHistory(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("\n# aider chat started at 2026-07-14 10:12:31\n\n")
	turn := func(user, answer string) {
		fmt.Fprintf(&b, "#### %s  \n\n%s\n\n", user, answer)
	}
	turn("日本語で説明してください", strings.Repeat("データベースの接続がタイムアウトしたときに、再試行の間隔を指数関数的に延ばします。", 80))
	var code strings.Builder
	code.WriteString("```go\n")
	for i := range 150 {
		fmt.Fprintf(&code, "if err := db.Query(ctx, q[%d], args...); err != nil { return fmt.Errorf(\"q%d: %%w\", err) }\n", i, i)
	}
	code.WriteString("```")
	turn("show me the whole retry loop for the queries", code.String())
	turn("explain the tenant filter at length", strings.Repeat("The tenant predicate must be added to every query that lists orders, or customers see each other's orders. ", 60))
	turn(strings.Repeat("why does the webhook retry forever? ", 200), "Because the backoff has no cap.")
	dir := t.TempDir()
	path := filepath.Join(dir, ".aider.chat.history.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLongTurnsFitAShortContext: turns of thousands of tokens, through a
// model that sees 512, each get vectors, with no refusal.
func TestLongTurnsFitAShortContext(t *testing.T) {
	requireOllama(t)
	path := longHistory(t)
	d := newDeja(t, shared.host, "ollama", model512)
	before := shared.refusals()
	r := d.mustRun("index", path)
	if n := shared.refusals() - before; n != 0 {
		t.Errorf("Ollama refused %d requests: deja sent texts longer than the model's context", n)
	}
	if s := parseSummary(t, r); s.newTurns != 4 || s.embedded != 4 {
		t.Fatalf("%d new turns, %d embedded; want 4 and 4\n%s", s.newTurns, s.embedded, r)
	}
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("index warned: %s", r.stderr)
	}
	requireAllEmbedded(t, d, "ollama:"+model512)

	sem, sr := d.recall("--mode", "semantic", "the tenant predicate on every orders query")
	if sr.code != 0 || len(sem.Results) == 0 || sem.RealizedMode != "semantic" {
		t.Fatalf("semantic recall: %s", sr)
	}
	if !strings.Contains(sem.Results[0].User, "tenant filter") {
		t.Errorf("semantic recall's first result is %q, want the tenant filter turn", sem.Results[0].User)
	}
}

// TestMissingModel: an explicit provider fails and indexes nothing; auto
// falls back to the built-in embedder and says how to use Ollama.
func TestMissingModel(t *testing.T) {
	requireOllama(t)
	path := longHistory(t)

	d := newDeja(t, shared.host, "ollama", "absent-model")
	r := d.run("index", path)
	if r.code != 1 || !strings.Contains(r.stderr, "run 'ollama pull absent-model'") || !strings.Contains(r.stderr, "nothing indexed") {
		t.Fatalf("explicit ollama with a missing model: %s\nwant exit 1 and the 'ollama pull absent-model' advice", r)
	}
	if st := d.status(); st.Turns != 0 {
		t.Errorf("%d turns stored though index failed", st.Turns)
	}

	d = newDeja(t, shared.host, "auto", "absent-model")
	r = d.mustRun("index", path)
	if !strings.Contains(r.stderr, "embedding with builtin:glove-100d-80k") || !strings.Contains(r.stderr, "run 'ollama pull absent-model' to use ollama:absent-model") {
		t.Errorf("auto with a missing model: %s\nwant the built-in embedder and the pull advice", r)
	}
	requireAllEmbedded(t, d, "builtin:glove-100d-80k")
}

// TestServerDown: the same, with nothing listening.
func TestServerDown(t *testing.T) {
	requireOllama(t)
	path := longHistory(t)
	down, err := startServer(filepath.Join(workDir, "models"), 0)
	if err != nil {
		t.Fatal(err)
	}
	down.stop()

	d := newDeja(t, down.host, "ollama", model512)
	r := d.run("index", path)
	if r.code != 1 || !strings.Contains(r.stderr, "start it with 'ollama serve'") {
		t.Fatalf("explicit ollama with the server down: %s\nwant exit 1 and the 'ollama serve' advice", r)
	}
	if st := d.status(); st.Turns != 0 {
		t.Errorf("%d turns stored though index failed", st.Turns)
	}

	d = newDeja(t, down.host, "auto", model512)
	r = d.mustRun("index", path)
	if !strings.Contains(r.stderr, "embedding with builtin:glove-100d-80k (Ollama is not reachable at http://"+down.host) {
		t.Errorf("auto with the server down: %s\nwant the built-in embedder and why", r)
	}
}

// TestAutoChoosesOllama: auto takes Ollama when it has the model.
func TestAutoChoosesOllama(t *testing.T) {
	requireOllama(t)
	d := newDeja(t, shared.host, "auto", model512)
	r := d.mustRun("index", longHistory(t))
	if !strings.Contains(r.stderr, "embedding with ollama:"+model512+" at http://"+shared.host) {
		t.Errorf("auto with the model served: %s\nwant Ollama chosen", r)
	}
	requireAllEmbedded(t, d, "ollama:"+model512)
}

// TestDoctor: doctor sees the server and whether the model is there.
func TestDoctor(t *testing.T) {
	requireOllama(t)
	type doctorJSON struct {
		Ollama struct {
			Reachable     bool   `json:"reachable"`
			ModelPulled   *bool  `json:"model_pulled"`
			ContextLength int    `json:"context_length"`
			Error         string `json:"error"`
		} `json:"ollama"`
	}
	check := func(model string, wantPulled bool) {
		t.Helper()
		d := newDeja(t, shared.host, "ollama", model)
		r := d.mustRun("doctor", "--json")
		var doc doctorJSON
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if !doc.Ollama.Reachable || doc.Ollama.ModelPulled == nil || *doc.Ollama.ModelPulled != wantPulled {
			t.Errorf("doctor with %s: %+v, want reachable and model_pulled %v", model, doc.Ollama, wantPulled)
		}
		if wantPulled && doc.Ollama.ContextLength != 512 {
			t.Errorf("doctor --json says %s has a %d-token context, want 512", model, doc.Ollama.ContextLength)
		}
		text := d.mustRun("doctor")
		if wantPulled && !strings.Contains(text.stdout, "model "+model+" pulled (512-token context") {
			t.Errorf("doctor does not name %s and its context:\n%s", model, text.stdout)
		}
		if !wantPulled && !strings.Contains(text.stdout, "ollama pull "+model) {
			t.Errorf("doctor with a missing model does not say to pull it:\n%s", text.stdout)
		}
	}
	check(model512, true)
	check("absent-model", false)
}

// TestFirstRequestWaitsForTheModelToLoad: with the model unloaded, the
// first index and the first recall wait for Ollama to load it rather than
// falling back.
func TestFirstRequestWaitsForTheModelToLoad(t *testing.T) {
	requireOllama(t)
	d := newDeja(t, shared.host, "ollama", model512)
	shared.unload(t, model512)
	d.mustRun("index", longHistory(t))
	requireAllEmbedded(t, d, "ollama:"+model512)

	shared.unload(t, model512)
	sem, r := d.recall("--mode", "semantic", "the tenant predicate on every orders query")
	if r.code != 0 || sem.RealizedMode != "semantic" || sem.FallbackReason != "" || len(sem.Results) == 0 {
		t.Fatalf("first recall while the model loads: %s", r)
	}
}

// TestServerRestartsMidIndex: Ollama stops while deja embeds the corpus
// and comes back; the run keeps every turn (keyword recall works), and the
// next run embeds what the first could not.
func TestServerRestartsMidIndex(t *testing.T) {
	requireOllama(t)
	files := smallCorpus(t)
	srv, err := startServer(filepath.Join(workDir, "models"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.stop() }()
	d := newDeja(t, srv.host, "ollama", model512)
	// One text per request makes the run long enough to interrupt.
	d.env = append(d.env, "DEJA_EMBED_BATCH=1")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	done := make(chan result, 1)
	go func() { done <- d.runContext(ctx, append([]string{"index"}, files...)...) }()

	// Wait until embedding has begun: the server has loaded the model.
	deadline := time.Now().Add(2 * time.Minute)
	for !srv.loaded(model512) {
		if time.Now().After(deadline) {
			t.Fatal("the model never loaded")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	srv.stop()
	srv, err = startServer(srv.models, portOf(srv.host))
	if err != nil {
		t.Fatal(err)
	}
	first := <-done
	// Either the retries spanned the restart and the run finished, or it
	// stopped embedding, kept the turns, and said so with exit 1.
	switch {
	case first.code == 0:
		t.Logf("the retries spanned the restart: %s", first.stdout)
	case first.code == 1 && strings.Contains(first.stderr, "lack vectors"):
		t.Logf("the run stopped embedding: %s", first.stderr)
	default:
		t.Fatalf("index across a restart: %s", first)
	}
	turns := d.status().Turns
	second := d.mustRun(append([]string{"index"}, files...)...)
	st := requireAllEmbedded(t, d, "ollama:"+model512)
	if st.Turns != turns {
		t.Errorf("%d turns after the second run, %d after the first: the restart lost or doubled turns\n%s", st.Turns, turns, second)
	}
}

func portOf(host string) int {
	i := strings.LastIndexByte(host, ':')
	p, _ := strconv.Atoi(host[i+1:])
	return p
}

// loaded reports whether the server has model in memory.
func (s *server) loaded(model string) bool {
	var ps struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := s.get("/api/ps", &ps); err != nil {
		return false
	}
	for _, m := range ps.Models {
		if strings.HasPrefix(m.Name, model) {
			return true
		}
	}
	return false
}

// TestIndexAndRecallAtTheSameTime: recalls through Ollama while an index
// embeds through it all answer by meaning.
func TestIndexAndRecallAtTheSameTime(t *testing.T) {
	requireOllama(t)
	files := smallCorpus(t)
	d := newDeja(t, shared.host, "ollama", model512)
	d.mustRun("index", longHistory(t))

	done := make(chan result, 1)
	go func() { done <- d.run(append([]string{"index"}, files...)...) }()
	recalls := 0
	for {
		select {
		case r := <-done:
			if r.code != 0 {
				t.Fatalf("index beside recalls: %s", r)
			}
			if recalls == 0 {
				t.Fatal("the index ended before one recall ran beside it")
			}
			requireAllEmbedded(t, d, "ollama:"+model512)
			t.Logf("%d recalls ran during the index", recalls)
			return
		default:
		}
		sem, r := d.recall("--mode", "semantic", "the tenant predicate on every orders query")
		if r.code != 0 || sem.RealizedMode != "semantic" || len(sem.Results) == 0 {
			t.Fatalf("recall during an index: %s", r)
		}
		recalls++
	}
}
