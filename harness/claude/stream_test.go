package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: a transcript parsed as its lines are
// read, in chunks of any size (a line cut across none, one or many), is
// the transcript parsed whole: every fixture, and one whose last line is
// still being written, read from the file's start and from further on.
func TestStreamParsesWhatParseParses(t *testing.T) {
	files := harnesstest.Fixtures(t, 1, "*.jsonl")
	inputs := harnesstest.ReadInputs(t, files)
	whole := inputs[filepath.Base(files[0])]
	inputs["partial last line"] = append(bytes.Clone(whole), `{"type":"user","uuid":"x9","sessionId":"11111111-2222-4333-8444-555555555555","message":{"role":"user","content":"half`...)
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
	files := harnesstest.Fixtures(t, 1, "*.jsonl")
	path := fixtureDir + "11111111-2222-4333-8444-555555555555.jsonl"
	pieces := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pieces += harnesstest.PiecesAddUp(t, f, Reader{}, data, harness.ParseOptions{Path: path, FirstOrdinal: 2})
	}
	if pieces == 0 {
		t.Fatal("no fixture was handed over in more than one piece")
	}
}
