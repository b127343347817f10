package pi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: a transcript parsed as its lines are
// read, in chunks of any size, is the transcript parsed whole: every
// fixture, one opening with a byte order mark, and one whose last line
// is still being written.
func TestStreamParsesWhatParseParses(t *testing.T) {
	inputs := harnesstest.StreamInputs(t, "*.jsonl", "pi_branch.jsonl", `{"type":"message","id":"zz","message":{"role":"user","content":"half`)
	harnesstest.StreamsAsWholeAt(t, Reader{}, inputs, func(name string) harness.ParseOptions {
		return harness.ParseOptions{Path: fixturePath(name), FirstOrdinal: 1}
	})
	// The partial last line is left for the next read.
	h := harness.ParseFile(Reader{}, inputs["partial last line"], harness.ParseOptions{Path: fixturePath("pi_branch.jsonl")})
	if first := inputs["pi_branch.jsonl"]; h.Sessions[0].End != int64(len(first)) || len(h.Warnings) != 0 {
		t.Errorf("session ends at %d (want %d), warnings %v", h.Sessions[0].End, len(first), h.Warnings)
	}
}

// TestPiecesAddUpToTheWhole: a transcript handed over in pieces of any
// size, after its Prescan, is the transcript parsed whole
// (harnesstest.PiecesAddUp): every fixture, and one whose tool results
// come late, fail, or never come.
func TestPiecesAddUpToTheWhole(t *testing.T) {
	inputs := harnesstest.ReadInputs(t, harnesstest.Fixtures(t, 6, "*.jsonl"))
	inputs["late results"] = []byte(lateResults(30))
	harnesstest.AllPiecesAddUp(t, Reader{}, inputs, func(name string) harness.ParseOptions {
		return harness.ParseOptions{Path: fixturePath(name), FirstOrdinal: 2}
	})
}

// lateResults is a transcript of n turns, each an answer that edits a
// file and runs a command: every third turn's edit fails, every fourth's
// command result comes after the next prompt, and every fifth's never
// comes.
func lateResults(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"8c3d4e5f-6071-4c8d-ae9f-1a2b3c4d5e6f","timestamp":"2026-06-01T08:00:00.000Z","cwd":"/home/dev/garden"}` + "\n")
	result := func(id string, failed bool) string {
		return fmt.Sprintf(`{"type":"message","id":"r%s","message":{"role":"toolResult","toolCallId":%q,"content":[{"type":"text","text":"out"}],"isError":%t}}`+"\n", id, id, failed)
	}
	late := ""
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"type":"message","id":"u%d","message":{"role":"user","content":"prompt %d about the beds"}}`+"\n", i, i)
		b.WriteString(late)
		late = ""
		fmt.Fprintf(&b, `{"type":"message","id":"a%d","message":{"role":"assistant","content":[{"type":"text","text":"answer %d"},{"type":"toolCall","id":"e%d","name":"edit","arguments":{"path":"beds/b%d.yaml"}},{"type":"toolCall","id":"c%d","name":"bash","arguments":{"command":"make lint %d"}}]}}`+"\n", i, i, i, i, i, i)
		b.WriteString(result(fmt.Sprint("e", i), i%3 == 0))
		switch {
		case i%5 == 0:
		case i%4 == 0:
			late = result(fmt.Sprint("c", i), false)
		default:
			b.WriteString(result(fmt.Sprint("c", i), false))
		}
	}
	return b.String()
}

// TestPrescanEndsTheParse: lines written after Prescan read the
// transcript are left for the next read, a result that would make a
// handed-over call a record included.
func TestPrescanEndsTheParse(t *testing.T) {
	before := lateResults(10)
	after := before + `{"type":"message","id":"rc5","message":{"role":"toolResult","toolCallId":"c5","isError":false}}` + "\n"
	harnesstest.PrescanEndsTheParse(t, Reader{}, []byte(before), []byte(after), harness.ParseOptions{Path: fixturePath("pi_branch.jsonl")})
}

// TestCorpusPiecesAddUp: every real pi and OpenClaw transcript of the
// corpus beside the repository, handed over in pieces after its Prescan,
// is the transcript parsed whole.
func TestCorpusPiecesAddUp(t *testing.T) {
	files := harnesstest.CorpusFiles(t, corpusRoot, "pi/*.jsonl", "openclaw/*.jsonl")
	for name, d := range harnesstest.ReadInputs(t, files) {
		harnesstest.PiecesAddUp(t, name, Reader{}, d, harness.ParseOptions{Path: fixturePath(name)})
	}
}
