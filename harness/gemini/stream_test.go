package gemini

import (
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
