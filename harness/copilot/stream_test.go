package copilot

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: an events file parsed as its lines are
// read, in chunks of any size, is the file parsed whole: every fixture,
// one opening with a byte order mark, and one whose last line is still
// being written.
func TestStreamParsesWhatParseParses(t *testing.T) {
	inputs := harnesstest.StreamInputs(t, "*.jsonl", "bad_lines_counted.jsonl", `{"type":"user.message","data":{"content":"half`)
	harnesstest.StreamsAsWholeAt(t, Reader{}, inputs, func(name string) harness.ParseOptions {
		return harness.ParseOptions{Path: fixturePath(name), FirstOrdinal: 2}
	})
}

// TestGrownFileReadAgain: a session resumed appends to its file, and the
// file read again from its start holds the first parse's turns unchanged
// and the new ones after them.
func TestGrownFileReadAgain(t *testing.T) {
	data := harnesstest.ReadFixture(t, "resumed_appends.jsonl")
	cut := bytes.Index(data, []byte(`{"type":"session.resume"`))
	if cut < 0 {
		t.Fatal("fixture has no session.resume")
	}
	opts := harness.ParseOptions{Path: fixturePath("resumed_appends.jsonl")}
	before := harness.ParseFile(Reader{}, data[:cut], opts)
	after := harness.ParseFile(Reader{}, data, opts)
	if len(before.Sessions) != 1 || len(after.Sessions) != 1 || before.Sessions[0].ID != after.Sessions[0].ID {
		t.Fatalf("sessions before %+v after %+v", before.Sessions, after.Sessions)
	}
	b, a := before.Sessions[0], after.Sessions[0]
	if b.End != int64(cut) || a.End != int64(len(data)) || a.Offset != 0 {
		t.Errorf("ranges before [%d,%d) after [%d,%d)", b.Offset, b.End, a.Offset, a.End)
	}
	if len(a.Messages) <= len(b.Messages) || !reflect.DeepEqual(a.Messages[:len(b.Messages)], b.Messages) {
		t.Errorf("messages before %+v after %+v", b.Messages, a.Messages)
	}
}
