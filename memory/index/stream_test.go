package index

import (
	"context"
	"fmt"
	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/harness/codex"
	"github.com/deja-dev/deja/harness/copilot"
	"github.com/deja-dev/deja/harness/gemini"
	"github.com/deja-dev/deja/harness/pi"
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
	lim := harness.Limits{Line: 2000}
	var lines []string
	for i := 1; i <= 40; i++ {
		extra := ""
		if i%3 == 0 {
			extra = fmt.Sprintf(`,"isSidechain":true,"agentId":"a%d"`, i%2)
		}
		lines = append(lines,
			memtest.ClaudeLine(4*i, "user", fmt.Sprintf(`"question %d about the ledger"`, i), extra),
			memtest.ClaudeLine(4*i+1, "assistant", fmt.Sprintf(`[{"type":"text","text":"answer %d"},{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./ledger -run T%d"}}]`, i, i, i), extra))
		if i == 7 {
			lines = append(lines, memtest.ClaudeLine(4*i+2, "assistant", `[{"type":"text","text":"`+strings.Repeat("long ", 500)+`"}]`, ""))
		}
	}
	grown := strings.Join(lines, "")
	first := grown[:len(grown)/2] + `{"type":"user","uuid":"half`
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
	runs := []streamRun{{first, false}, {grown, false}, {grown, true}, {changed, false}, {strings.Join(cut, ""), false}, {grown, false}, {rewritten, false}}
	dumps := streamedAndWhole(t, claude.Reader{}, memtest.TranscriptID+".jsonl", lim, runs)
	if !strings.Contains(dumps["streamed"][0], "longer than 2000 bytes") {
		t.Errorf("the line over the bound was not reported:\n%s", dumps["streamed"][0])
	}
}

// streamRun is one write of a history and its index.
type streamRun struct {
	data string
	full bool
}

// streamedAndWhole indexes the runs' histories, one after another, into
// three stores: streamed by fr (a harness.LineStreamer), streamed in
// pieces with its vectors flushed a few turns at a time, and read whole;
// it checks that all three stores dump the same after each run, and
// returns the dumps by mode.
func streamedAndWhole(t *testing.T, fr harness.FileReader, name string, lim harness.Limits, runs []streamRun) map[string][]string {
	t.Helper()
	emb := memtest.NewWordsEmbedder()
	dumps := map[string][]string{}
	for _, mode := range []string{"streamed", "pieces", "whole"} {
		dir := mkdir(t, filepath.Join(t.TempDir(), mode))
		path := filepath.Join(dir, name)
		s, err := store.Open(context.Background(), mkdir(t, filepath.Join(dir, "data")))
		if err != nil {
			t.Fatal(err)
		}
		reg := harness.Registry{fr}
		if mode == "whole" {
			reg = harness.Registry{readWhole{fr}}
		}
		for _, r := range runs {
			if err := os.WriteFile(path, []byte(r.data), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := Options{Paths: []string{path}, Harnesses: reg, Embedder: emb, Full: r.full, chunk: 300, limits: lim}
			if mode == "pieces" {
				// Its vectors go to the segments a few turns at a time too.
				opts.window, opts.flushEvery = 700, 50
			}
			rep, err := Index(context.Background(), s, opts)
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
	return dumps
}

// TestStreamedRolloutStoresWhatOneReadWholeStores: a Codex .jsonl rollout
// streamed, and streamed in pieces, stores what it stores read whole:
// one that logs the user's messages as events and one that does not,
// indexed half written, grown, re-read by --full, and with a turn
// changed.
func TestStreamedRolloutStoresWhatOneReadWholeStores(t *testing.T) {
	const id = "019b55c1-d022-7061-bbb9-b0c90708472b"
	line := func(typ, payload string) string {
		return `{"timestamp":"2025-12-25T13:45:23.000Z","type":"` + typ + `","payload":` + payload + "}\n"
	}
	for _, events := range []bool{true, false} {
		var b strings.Builder
		b.WriteString(line("session_meta", `{"id":"`+id+`","timestamp":"2025-12-25T13:45:23.000Z","cwd":"/srv/shop"}`))
		for i := 1; i <= 30; i++ {
			q, a := fmt.Sprintf("question %d about the ledger", i), fmt.Sprintf("answer %d", i)
			b.WriteString(line("response_item", fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}`, q)))
			if events {
				b.WriteString(line("event_msg", fmt.Sprintf(`{"type":"user_message","message":%q}`, q)))
			}
			b.WriteString(line("response_item", fmt.Sprintf(`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"go\",\"test\",\"./ledger\",\"-run\",\"T%d\"]}"}`, i)))
			b.WriteString(line("response_item", fmt.Sprintf(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}`, a)))
			if events {
				b.WriteString(line("event_msg", fmt.Sprintf(`{"type":"agent_message","message":%q}`, a)))
			}
		}
		grown := b.String()
		first := grown[:len(grown)/2]
		first = first[:strings.LastIndex(first, "\n")+1] + `{"timestamp":"2025-12-25T13:45:23.000Z","type":"event`
		changed := strings.ReplaceAll(grown, `answer 5"`, `a changed answer 5"`)
		runs := []streamRun{{first, false}, {grown, false}, {grown, true}, {changed, false}}
		dumps := streamedAndWhole(t, codex.Reader{}, "rollout-2025-12-25T22-45-23-"+id+".jsonl", harness.Limits{}, runs)
		if !strings.Contains(dumps["whole"][1], "go test ./ledger -run T30") || !strings.Contains(dumps["whole"][1], "question 30 about the ledger") {
			t.Errorf("events %v: the rollout's last turn is not stored:\n%s", events, dumps["whole"][1])
		}
	}
}

// cancelAfter is an embedder that cancels an index run on its nth call,
// after answering it.
type cancelAfter struct {
	*memtest.WordsEmbedder
	n      int
	cancel context.CancelFunc
}

func (e *cancelAfter) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	if e.n--; e.n == 0 {
		e.cancel()
	}
	return e.WordsEmbedder.Embed(ctx, kind, texts)
}

// TestVectorsFlushedBeforeACommitThatNeverCame: an index run whose
// vectors went to the segments a few turns at a time, stopped before its
// commit, leaves the store as it was; the next run stores what a store
// that never saw the stopped run stores, vectors included.
func TestVectorsFlushedBeforeACommitThatNeverCame(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 60; i++ {
		b.WriteString(memtest.ClaudeLine(2*i, "user", fmt.Sprintf(`"question %d about the refunds"`, i), ""))
		b.WriteString(memtest.ClaudeLine(2*i+1, "assistant", fmt.Sprintf(`[{"type":"text","text":"answer %d about rounding"}]`, i), ""))
	}
	history := b.String()
	first := history[:len(history)/3]
	first = first[:strings.LastIndex(first, "\n")+1]
	dump := func(stop bool) string {
		dir := mkdir(t, filepath.Join(t.TempDir(), "h"))
		path := filepath.Join(dir, memtest.TranscriptID+".jsonl")
		s, err := store.Open(context.Background(), mkdir(t, filepath.Join(dir, "data")))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		emb := memtest.NewWordsEmbedder()
		opts := Options{Paths: []string{path}, Harnesses: harness.Registry{claude.Reader{}}, Embedder: emb, chunk: 200, window: 400, flushEvery: 3 * emb.Dim}
		write := func(data string) {
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(first)
		if _, err := Index(context.Background(), s, opts); err != nil {
			t.Fatal(err)
		}
		write(history)
		if stop {
			ctx, cancel := context.WithCancel(context.Background())
			stopped := opts
			stopped.Embedder = &cancelAfter{WordsEmbedder: emb, n: 6, cancel: cancel}
			if _, err := Index(ctx, s, stopped); err == nil {
				t.Fatal("the stopped run committed")
			}
			var turns, segments int
			memtest.RawDB(t, s).QueryRow(`SELECT (SELECT count(*) FROM turns), (SELECT count(*) FROM vectors WHERE vec IS NOT NULL)`).Scan(&turns, &segments)
			if turns != 20 || segments != 0 {
				t.Fatalf("after the stopped run the store holds %d turns and %d pending vectors, want the first run's 20 and none", turns, segments)
			}
			// The stopped run did flush: its blocks lie past the length
			// the ledger committed, where readers do not look.
			var file string
			var length int64
			if err := memtest.RawDB(t, s).QueryRow(`SELECT file, length FROM segments`).Scan(&file, &length); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(filepath.Join(s.Dir(), segment.VectorDir, file)); err != nil || fi.Size() <= length {
				t.Fatalf("the stopped run flushed no vectors before it stopped: %v %v, committed %d", fi, err, length)
			}
		}
		if _, err := Index(context.Background(), s, opts); err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(storeDump(t, s, emb), dir, "DIR")
	}
	if stopped, clean := dump(true), dump(false); stopped != clean {
		t.Errorf("after a stopped run\n%s\nwithout one\n%s", stopped, clean)
	}
}

// TestStreamedRecordingStoresWhatOneReadWholeStores: a Gemini CLI JSONL
// recording, its records rewritten by later lines, streamed after its
// Prescan, and handed to the writer in pieces, stores what it stores
// read whole: half written, grown (a line over the line bound and tool
// calls re-appended once finished), re-read by --full, rewound by
// "$rewindTo" and grown past it, rebuilt by a "$set" checkpoint, and with
// its first prompt re-appended at its end.
func TestStreamedRecordingStoresWhatOneReadWholeStores(t *testing.T) {
	lim := harness.Limits{Line: 2000}
	var b strings.Builder
	b.WriteString(`{"sessionId":"0b7c6f0e-4d6a-4c1e-9a53-1f2e3d4c5b6a","projectHash":"ab12","startTime":"2026-05-01T10:00:00Z","kind":"main"}` + "\n")
	turns := func(from, to int, about string) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, `{"id":"u%d","timestamp":"2026-05-01T10:%02d:00Z","type":"user","content":"question %d about the %s"}`+"\n", i, i%60, i, about)
			call := fmt.Sprintf(`"toolCalls":[{"name":"run_shell_command","status":"%%s","args":{"command":"go test ./ledger -run T%d"}}]`, i)
			fmt.Fprintf(&b, `{"id":"g%d","timestamp":"2026-05-01T10:%02d:30Z","type":"gemini","content":"answer %d",`+call+`}`+"\n", i, i%60, i, "executing")
			fmt.Fprintf(&b, `{"id":"g%d","timestamp":"2026-05-01T10:%02d:31Z","type":"gemini","content":"answer %d, run",`+call+`}`+"\n", i, i%60, i, "success")
			if i == 7 {
				fmt.Fprintf(&b, `{"id":"g%d-long","type":"gemini","content":"%s"}`+"\n", i, strings.Repeat("long ", 500))
			}
		}
		return b.String()
	}
	b.WriteString(turns(0, 40, "ledger"))
	grown := b.String()
	first := grown[:len(grown)/2] + `{"id":"half","type":"user","content":"half`
	rewound := grown + `{"$rewindTo":"u25"}` + "\n" + turns(25, 30, "invoices")
	rebuilt := rewound + `{"$set":{"messages":[{"id":"u1","type":"user","content":"question 1, checkpointed"},{"id":"g1","type":"gemini","content":"answer 1, checkpointed"}]}}` + "\n" + turns(50, 60, "refunds")
	reordered := rebuilt + `{"id":"u1","type":"user","content":"question 1, asked again"}` + "\n"
	// A turn in the middle emptied (its prompt and answer written again
	// with no text): it has left the session, and the store drops it.
	emptied := reordered + `{"id":"u53","type":"user","content":""}` + "\n" + `{"id":"g53","type":"gemini","content":""}` + "\n"
	runs := []streamRun{{first, false}, {grown, false}, {grown, true}, {rewound, false}, {rebuilt, false}, {reordered, false}, {emptied, false}}
	dumps := streamedAndWhole(t, gemini.Reader{}, "session-2026-05-01T10-00-0b7c6f0e.jsonl", lim, runs)
	if !strings.Contains(dumps["streamed"][1], "longer than 2000 bytes") {
		t.Errorf("the line over the bound was not reported:\n%s", dumps["streamed"][1])
	}
	for _, want := range []string{"question 29 about the invoices", "question 59 about the refunds", "question 1, asked again"} {
		if !strings.Contains(dumps["pieces"][5], want) {
			t.Errorf("the last run stores no %q:\n%s", want, dumps["pieces"][5])
		}
	}
	for _, mode := range []string{"streamed", "pieces", "whole"} {
		if d := dumps[mode]; !strings.Contains(d[5], "question 53 about") || strings.Contains(d[6], "question 53 about") || !strings.Contains(d[6], "question 54 about") {
			t.Errorf("%s: the emptied turn of question 53 is still stored, or another left with it:\n%s", mode, d[6])
		}
	}
}

// TestStreamedOutcomesStoreWhatOneReadWholeStores: a pi transcript and a
// Copilot CLI events file, whose tool calls become records by what later
// lines say of them, streamed after their Prescan and handed to the
// writer in pieces, store what they store read whole: half written (a
// result not yet written), grown (that result, and a failure written
// after the next prompt), and re-read by --full.
func TestStreamedOutcomesStoreWhatOneReadWholeStores(t *testing.T) {
	var tr, ev strings.Builder
	tr.WriteString(`{"type":"session","version":3,"id":"8c3d4e5f-6071-4c8d-ae9f-1a2b3c4d5e6f","timestamp":"2026-06-01T08:00:00.000Z","cwd":"/home/dev/garden"}` + "\n")
	ev.WriteString(`{"type":"session.start","data":{"sessionId":"0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60","startTime":"2026-06-01T09:00:00.000Z","context":{"cwd":"/home/dev/shop"}}}` + "\n")
	piResult := func(id string, failed bool) string {
		return fmt.Sprintf(`{"type":"message","id":"r%s","message":{"role":"toolResult","toolCallId":%q,"isError":%t}}`+"\n", id, id, failed)
	}
	completed := func(id string, ok bool) string {
		return fmt.Sprintf(`{"type":"tool.execution_complete","data":{"toolCallId":%q,"success":%t}}`+"\n", id, ok)
	}
	turn := func(i int) {
		fmt.Fprintf(&tr, `{"type":"message","id":"u%d","message":{"role":"user","content":"question %d about the beds"}}`+"\n", i, i)
		fmt.Fprintf(&tr, `{"type":"message","id":"a%d","message":{"role":"assistant","content":[{"type":"text","text":"answer %d"},{"type":"toolCall","id":"c%d","name":"bash","arguments":{"command":"make lint %d"}},{"type":"toolCall","id":"e%d","name":"edit","arguments":{"path":"beds/b%d.yaml"}}]}}`+"\n", i, i, i, i, i, i)
		fmt.Fprintf(&ev, `{"type":"user.message","data":{"content":"question %d about the cart"}}`+"\n", i)
		fmt.Fprintf(&ev, `{"type":"assistant.message","data":{"content":"answer %d"}}`+"\n", i)
		fmt.Fprintf(&ev, `{"type":"tool.execution_start","data":{"toolCallId":"c%d","toolName":"bash","arguments":{"command":"go test ./cart -run T%d"}}}`+"\n", i, i)
		fmt.Fprintf(&ev, `{"type":"tool.execution_start","data":{"toolCallId":"e%d","toolName":"edit","arguments":{"path":"/home/dev/shop/cart%d.go"}}}`+"\n", i, i)
	}
	for i := 0; i < 30; i++ {
		turn(i)
		tr.WriteString(piResult(fmt.Sprint("e", i), i%3 == 0))
		if i%3 == 0 {
			ev.WriteString(completed(fmt.Sprint("e", i), false))
		}
		if i != 29 {
			tr.WriteString(piResult(fmt.Sprint("c", i), false))
		}
	}
	trHalf, evHalf := tr.String(), ev.String()
	tr.WriteString(piResult("c29", false))
	turn(30)
	// The edit of turn 29 fails, told after the next prompt.
	ev.WriteString(completed("e29", false))
	tr.WriteString(piResult("c30", false))
	for _, h := range []struct {
		fr         harness.FileReader
		name       string
		half, full string
		want       string
	}{
		{pi.Reader{}, "2026-06-01T08-00-00-000Z_8c3d4e5f-6071-4c8d-ae9f-1a2b3c4d5e6f.jsonl", trHalf, tr.String(), "make lint 29"},
		{copilot.Reader{}, "events.jsonl", evHalf, ev.String(), "go test ./cart -run T30"},
	} {
		dumps := streamedAndWhole(t, h.fr, h.name, harness.Limits{}, []streamRun{{h.half, false}, {h.full, false}, {h.full, true}})
		if strings.Contains(dumps["pieces"][0], h.want) || !strings.Contains(dumps["pieces"][1], h.want) {
			t.Errorf("%s: %q stored before its result, or not after it:\n%s\n%s", h.name, h.want, dumps["pieces"][0], dumps["pieces"][1])
		}
	}
}

// A stored turn that the session's re-read no longer has, before its last
// turn read, leaves the store: here the files an aider session added
// before its first message (turn -1), removed by hand. Read whole, a
// session at a time, streamed, and streamed in pieces of a few bytes (each
// piece pruned past the turns the pieces before read), the store ends the
// same; turns after the last one read stay (TestIndexKeepsCutTurns).
func TestAStoredTurnTheReReadLacksLeavesTheStore(t *testing.T) {
	head := "# aider chat started at 2026-03-02 10:00:00\n\n"
	var body strings.Builder
	for i := range 12 {
		fmt.Fprintf(&body, "#### question %d about the tenant filter\n\nanswer %d\n\n", i, i)
	}
	before := head + "> Added internal/db/query.go to the chat.\n\n" + body.String()
	after := head + body.String()
	base := t.TempDir()
	path := filepath.Join(mkdir(t, filepath.Join(base, "p")), aider.HistoryFileName)
	var dumps []string
	for i, mode := range []struct {
		window int
		stream int64
	}{{1 << 30, 0}, {1, 0}, {1 << 30, 1}, {120, 1}} {
		s, err := store.Open(context.Background(), filepath.Join(base, fmt.Sprint("data", i)))
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Paths: []string{path}, window: mode.window, streamAbove: mode.stream, chunk: 500}
		var counts []int
		for _, data := range []string{before, after} {
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Index(context.Background(), s, opts); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := memtest.RawDB(t, s).QueryRow(`SELECT count(*) FROM turns`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			counts = append(counts, n)
		}
		var files int
		if err := memtest.RawDB(t, s).QueryRow(`SELECT count(*) FROM turns WHERE files LIKE '%query.go%'`).Scan(&files); err != nil {
			t.Fatal(err)
		}
		if counts[0] != 13 || counts[1] != 12 || files != 0 {
			t.Errorf("window %d, stream %d: %v turns before and after the files were removed, %d turns still name them; want 13, 12, 0", mode.window, mode.stream, counts, files)
		}
		dumps = append(dumps, ledgerDump(t, s))
		s.Close()
	}
	for i := 1; i < len(dumps); i++ {
		if dumps[i] != dumps[0] {
			t.Errorf("mode %d: the store differs from one indexed whole:\n%s\nwhole:\n%s", i, dumps[i], dumps[0])
		}
	}
}
