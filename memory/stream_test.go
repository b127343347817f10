package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
)

// readWhole is a Claude Code reader that is not a harness.LineStreamer:
// its transcripts are read whole, as every transcript was.
type readWhole struct{ harness.FileReader }

// TestStreamedTranscriptStoresWhatOneReadWholeStores: a transcript parsed
// as its lines are read, a few lines at a time, and one handed to the
// writer in pieces of a few turns, its vectors flushed to the segments a
// few turns at a time, store what it stores read whole
// (sessions, turns, records, vectors, files rows, problems and warnings):
// indexed, grown and indexed again, with a line over the line bound and
// a last line half written, re-read by --full, then with a turn changed,
// a turn cut from its middle, a subagent's turns gone, and every
// question rewritten.
func TestStreamedTranscriptStoresWhatOneReadWholeStores(t *testing.T) {
	emb := newWordsEmbedder()
	lim := harness.Limits{Line: 2000}
	var lines []string
	for i := 1; i <= 40; i++ {
		extra := ""
		if i%3 == 0 {
			extra = fmt.Sprintf(`,"isSidechain":true,"agentId":"a%d"`, i%2)
		}
		lines = append(lines,
			claudeLine(4*i, "user", fmt.Sprintf(`"question %d about the ledger"`, i), extra),
			claudeLine(4*i+1, "assistant", fmt.Sprintf(`[{"type":"text","text":"answer %d"},{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./ledger -run T%d"}}]`, i, i, i), extra))
		if i == 7 {
			lines = append(lines, claudeLine(4*i+2, "assistant", `[{"type":"text","text":"`+strings.Repeat("long ", 500)+`"}]`, ""))
		}
	}
	grown := strings.Join(lines, "")
	first := grown[:len(grown)/2] + `{"type":"user","uuid":"half`
	type run struct {
		data string
		full bool
	}
	changed := strings.Replace(grown, `"text":"answer 5"`, `"text":"a changed answer 5"`, 1)
	var cut []string
	for _, l := range strings.SplitAfter(changed, "\n") {
		if !strings.Contains(l, "question 11 ") && !strings.Contains(l, "answer 11\"") && !strings.Contains(l, `"agentId":"a1"`) {
			cut = append(cut, l)
		}
	}
	if len(cut) >= strings.Count(changed, "\n") {
		t.Fatal("no line was cut")
	}
	// Every question rewritten: no longer the session stored under its ID.
	rewritten := strings.ReplaceAll(grown, " about the ledger", " about the invoices")
	runs := []run{{first, false}, {grown, false}, {grown, true}, {changed, false}, {strings.Join(cut, ""), false}, {grown, false}, {rewritten, false}}
	dumps := map[string][]string{}
	for _, mode := range []string{"streamed", "pieces", "whole"} {
		dir := mkdir(t, filepath.Join(t.TempDir(), mode))
		path := filepath.Join(dir, transcriptID+".jsonl")
		s, err := Open(context.Background(), mkdir(t, filepath.Join(dir, "data")))
		if err != nil {
			t.Fatal(err)
		}
		reg := harness.Registry{claude.Reader{}}
		if mode == "whole" {
			reg = harness.Registry{readWhole{claude.Reader{}}}
		}
		for _, r := range runs {
			if err := os.WriteFile(path, []byte(r.data), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := IndexOptions{Paths: []string{path}, Harnesses: reg, Embedder: emb, Full: r.full, chunk: 300, limits: lim}
			if mode == "pieces" {
				// Its vectors go to the segments a few turns at a time too.
				opts.window, opts.flushEvery = 700, 50
			}
			rep, err := s.Index(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			d := fmt.Sprintf("%d new turns, %d sessions, problems %q, warnings %q\n%s", rep.NewTurns, rep.Sessions, rep.Problems, rep.Warnings, storeDump(t, s, emb))
			dumps[mode] = append(dumps[mode], strings.ReplaceAll(d, dir, "DIR"))
		}
		s.Close()
	}
	for i := range runs {
		for _, mode := range []string{"streamed", "pieces"} {
			if dumps[mode][i] != dumps["whole"][i] {
				t.Errorf("run %d: %s\n%s\nwhole\n%s", i, mode, dumps[mode][i], dumps["whole"][i])
			}
		}
	}
	if !strings.Contains(dumps["streamed"][0], "longer than 2000 bytes") {
		t.Errorf("the line over the bound was not reported:\n%s", dumps["streamed"][0])
	}
}

// cancelAfter is an embedder that cancels an index run on its nth call,
// after answering it.
type cancelAfter struct {
	*wordsEmbedder
	n      int
	cancel context.CancelFunc
}

func (e *cancelAfter) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	if e.n--; e.n == 0 {
		e.cancel()
	}
	return e.wordsEmbedder.Embed(ctx, kind, texts)
}

// TestVectorsFlushedBeforeACommitThatNeverCame: an index run whose
// vectors went to the segments a few turns at a time, stopped before its
// commit, leaves the store as it was; the next run stores what a store
// that never saw the stopped run stores, vectors included.
func TestVectorsFlushedBeforeACommitThatNeverCame(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		b.WriteString(claudeLine(2*i, "user", fmt.Sprintf(`"question %d about the refunds"`, i), ""))
		b.WriteString(claudeLine(2*i+1, "assistant", fmt.Sprintf(`[{"type":"text","text":"answer %d about rounding"}]`, i), ""))
	}
	history := b.String()
	first := history[:len(history)/3]
	first = first[:strings.LastIndex(first, "\n")+1]
	dump := func(stop bool) string {
		dir := mkdir(t, filepath.Join(t.TempDir(), "h"))
		path := filepath.Join(dir, transcriptID+".jsonl")
		s, err := Open(context.Background(), mkdir(t, filepath.Join(dir, "data")))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		emb := newWordsEmbedder()
		opts := IndexOptions{Paths: []string{path}, Harnesses: harness.Registry{claude.Reader{}}, Embedder: emb, chunk: 200, window: 400, flushEvery: 3 * emb.dim}
		write := func(data string) {
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(first)
		if _, err := s.Index(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		write(history)
		if stop {
			ctx, cancel := context.WithCancel(context.Background())
			stopped := opts
			stopped.Embedder = &cancelAfter{wordsEmbedder: emb, n: 6, cancel: cancel}
			if _, err := s.Index(ctx, stopped); err == nil {
				t.Fatal("the stopped run committed")
			}
			var turns, segments int
			s.db.QueryRow(`SELECT (SELECT count(*) FROM turns), (SELECT count(*) FROM vectors WHERE vec IS NOT NULL)`).Scan(&turns, &segments)
			if turns != 20 || segments != 0 {
				t.Fatalf("after the stopped run the store holds %d turns and %d pending vectors, want the first run's 20 and none", turns, segments)
			}
			// The stopped run did flush: its blocks lie past the length
			// the ledger committed, where readers do not look.
			var file string
			var length int64
			if err := s.db.QueryRow(`SELECT file, length FROM segments`).Scan(&file, &length); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(filepath.Join(s.Dir(), VectorDir, file)); err != nil || fi.Size() <= length {
				t.Fatalf("the stopped run flushed no vectors before it stopped: %v %v, committed %d", fi, err, length)
			}
		}
		if _, err := s.Index(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(storeDump(t, s, emb), dir, "DIR")
	}
	if stopped, clean := dump(true), dump(false); stopped != clean {
		t.Errorf("after a stopped run\n%s\nwithout one\n%s", stopped, clean)
	}
}
