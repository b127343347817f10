package claude

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: a transcript parsed as its lines are
// read, in chunks of any size (a line cut across none, one or many), is
// the transcript parsed whole: every fixture, one opening with a byte
// order mark, and one whose last line is still being written, read from
// the file's start and from further on.
func TestStreamParsesWhatParseParses(t *testing.T) {
	inputs := harnesstest.StreamInputs(t, "*.jsonl", "bad_lines_are_counted.jsonl", `{"type":"user","uuid":"x9","sessionId":"11111111-2222-4333-8444-555555555555","message":{"role":"user","content":"half`)
	// Named by a session id, as a transcript that streams is.
	path := fixtureDir + "11111111-2222-4333-8444-555555555555.jsonl"
	if !(Reader{}).Streams(path, nil) || (Reader{}).Streams(fixtureDir+"agent-a1.jsonl", nil) {
		t.Fatal("Streams: want a transcript named by its session id, and only it")
	}
	for _, offset := range []int64{0, 1000} {
		harnesstest.StreamsAsWhole(t, Reader{}, inputs, harness.ParseOptions{Path: path, Offset: offset, FirstOrdinal: 3})
	}
}

// TestPiecesAddUpToTheWhole: a transcript handed over in pieces of any
// size is the transcript parsed whole (harnesstest.PiecesAddUp), every
// fixture.
func TestPiecesAddUpToTheWhole(t *testing.T) {
	path := fixtureDir + "11111111-2222-4333-8444-555555555555.jsonl"
	pieces := 0
	for name, data := range harnesstest.ReadInputs(t, harnesstest.Fixtures(t, 1, "*.jsonl")) {
		pieces += harnesstest.PiecesAddUp(t, name, Reader{}, data, harness.ParseOptions{Path: path, FirstOrdinal: 2})
	}
	if pieces == 0 {
		t.Fatal("no fixture was handed over in more than one piece")
	}
}
