package gemini

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: a JSONL recording parsed as its lines
// are read, in chunks of any size, is the recording parsed whole: every
// fixture, one opening with a byte order mark, and one whose last line is
// still being written.
func TestStreamParsesWhatParseParses(t *testing.T) {
	inputs := harnesstest.StreamInputs(t, "*.jsonl", "bad_lines_counted.jsonl", `{"id":"m9","type":"user","content":"half`)
	path := "/home/u/.gemini/tmp/abc/chats/session-1.jsonl"
	if !(Reader{}).Streams(path, nil) || (Reader{}).Streams("/home/u/.gemini/tmp/abc/chats/session-1.json", nil) {
		t.Fatal("Streams: want a JSONL recording, and only it")
	}
	harnesstest.StreamsAsWhole(t, Reader{}, inputs, harness.ParseOptions{Path: path, FirstOrdinal: 2})
}

// TestPiecesAddUpToTheWhole: a recording handed over in pieces of any
// size, after its Prescan, is the recording parsed whole
// (harnesstest.PiecesAddUp): every fixture, one whose records are
// rewritten by every later kind of line, and one whose first prompt is
// re-appended at its end.
func TestPiecesAddUpToTheWhole(t *testing.T) {
	path := fixturePath("session-2026-05-01T10-00-abcdef12.jsonl")
	inputs := harnesstest.ReadInputs(t, harnesstest.Fixtures(t, 1, "*.jsonl"))
	inputs["rewritten"] = []byte(rewritten(40))
	inputs["first prompt last"] = []byte(head + turnLines(0, 30) + `{"id":"u0","type":"user","content":"the first prompt, rewritten last"}` + "\n")
	harnesstest.AllPiecesAddUp(t, Reader{}, inputs, func(string) harness.ParseOptions { return harness.ParseOptions{Path: path, FirstOrdinal: 2} })
}

const head = `{"sessionId":"0b7c6f0e-4d6a-4c1e-9a53-1f2e3d4c5b6a","projectHash":"ab12","startTime":"2026-05-01T10:00:00Z","kind":"main"}` + "\n"

// turnLines writes turns from to to: a prompt, an answer that edits a
// file, and the answer re-appended once its tool call finished.
func turnLines(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, `{"id":"u%d","timestamp":"2026-05-01T10:%02d:00Z","type":"user","content":"prompt %d about the ledger"}`+"\n", i, i%60, i)
		call := fmt.Sprintf(`"toolCalls":[{"name":"replace","status":"%%s","args":{"file_path":"/p/ledger%d.go"}}]`, i)
		fmt.Fprintf(&b, `{"id":"g%d","timestamp":"2026-05-01T10:%02d:30Z","type":"gemini","content":"answer %d",`+call+`}`+"\n", i, i%60, i, "executing")
		fmt.Fprintf(&b, `{"id":"g%d","timestamp":"2026-05-01T10:%02d:31Z","type":"gemini","content":"answer %d, done",`+call+`}`+"\n", i, i%60, i, "success")
	}
	return b.String()
}

// rewritten is a recording of n turns whose middle is rewound, whose
// tail is rebuilt by a checkpoint, and that goes on after both.
func rewritten(n int) string {
	return head + turnLines(0, n) +
		fmt.Sprintf(`{"$rewindTo":"u%d"}`, n/2) + "\n" +
		turnLines(n/2, n/2+3) +
		`{"$set":{"lastUpdated":"2026-05-01T11:00:00Z"}}` + "\n" +
		`{"$set":{"messages":[{"id":"u1","type":"user","content":"prompt 1, checkpointed"},{"id":"g1","type":"gemini","content":"answer 1, checkpointed"},{"id":"u2","type":"user","content":"prompt 2, checkpointed"}]}}` + "\n" +
		turnLines(n, n+5)
}

// TestPiecesHoldNoRecordWhole: a recording's prompt re-appended after more
// than the bound of later records is placed where it is read, with a
// warning, so that what the parse holds stays bounded; nothing is lost,
// and every other record keeps its place.
func TestPiecesHoldNoRecordWhole(t *testing.T) {
	data := head + turnLines(0, 30) + `{"id":"u0","type":"user","content":"the first prompt, rewritten last"}` + "\n"
	found, err := Reader{}.Prescan(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	opts := harness.ParseOptions{Path: fixturePath("session-1.jsonl"), Prescanned: found}
	var gathered []harness.Message
	pieces := 0
	last, _, err := harness.ParsePieces(boundedHold{1000}, strings.NewReader(data), 100, 300, 0, opts, func(h *harness.History, _ int64) error {
		pieces++
		for _, s := range h.Sessions {
			gathered = append(gathered, s.Messages...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range last.Sessions {
		gathered = append(gathered, s.Messages...)
	}
	if pieces < 5 {
		t.Fatalf("%d pieces: want the turns handed over as they are read", pieces)
	}
	// 30 prompts and 30 answers; the first prompt comes last, as read.
	if len(gathered) != 60 || gathered[0].Text != "answer 0, done" || gathered[59].Text != "the first prompt, rewritten last" {
		t.Fatalf("%d messages, first %q, last %q", len(gathered), gathered[0].Text, gathered[len(gathered)-1].Text)
	}
	for i, m := range gathered[1:59] {
		want := fmt.Sprintf("prompt %d about the ledger", i/2+1)
		if i%2 == 1 {
			want = fmt.Sprintf("answer %d, done", i/2+1)
		}
		if m.Text != want {
			t.Fatalf("message %d is %q, want %q", i+1, m.Text, want)
		}
	}
	if len(last.Warnings) != 1 || !strings.Contains(last.Warnings[0], "line 92: a record rewritten after more than 64 MB") {
		t.Fatalf("warnings %q", last.Warnings)
	}
}

// boundedHold is Reader with its parse holding at most max bytes of
// records read before their place.
type boundedHold struct{ max int }

func (b boundedHold) Name() string                                       { return Reader{}.Name() }
func (b boundedHold) ValidID(id string) bool                             { return Reader{}.ValidID(id) }
func (b boundedHold) Streams(path string, head []byte) bool              { return true }
func (b boundedHold) Sniff(path string, head []byte) error               { return nil }
func (b boundedHold) Discover(harness.DiscoverOptions) harness.Discovery { return harness.Discovery{} }
func (b boundedHold) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Reader{}.Parse(data, opts)
}
func (b boundedHold) Stream(opts harness.ParseOptions) harness.LineParser {
	p := Reader{}.Stream(opts).(*parser)
	p.fin.max = b.max
	return p
}

// TestPrescanEndsTheParse: lines written after Prescan read the recording
// are left for the next read, even one that rewinds what was handed over.
func TestPrescanEndsTheParse(t *testing.T) {
	before := head + turnLines(0, 10)
	after := before + `{"$rewindTo":"u2"}` + "\n" + turnLines(20, 22)
	harnesstest.PrescanEndsTheParse(t, Reader{}, []byte(before), []byte(after), harness.ParseOptions{Path: fixturePath("session-1.jsonl")})
}

// TestCorpusPiecesAddUp: every real JSONL recording of the corpus beside
// the repository, handed over in pieces after its Prescan, is the
// recording parsed whole.
func TestCorpusPiecesAddUp(t *testing.T) {
	for _, f := range corpusChats(t) {
		if !strings.HasSuffix(f, ".jsonl") {
			continue
		}
		data := harnesstest.ReadInputs(t, []string{f})
		for name, d := range data {
			harnesstest.PiecesAddUp(t, name, Reader{}, d, harness.ParseOptions{Path: fixturePath("session-1.jsonl")})
		}
	}
}
