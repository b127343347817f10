package copilot

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// TestStreamParsesWhatParseParses: an events file parsed as its lines are
// read, in chunks of any size, is the file parsed whole: every fixture,
// one opening with a byte order mark, and one whose last line is still
// being written.
func TestStreamParsesWhatParseParses(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	inputs := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = data
	}
	first := inputs[filepath.Base(files[0])]
	inputs["bom"] = append([]byte("\xEF\xBB\xBF"), first...)
	inputs["partial last line"] = append(bytes.Clone(first), `{"type":"user.message","data":{"content":"half`...)
	for name, data := range inputs {
		opts := harness.ParseOptions{Path: fixturePath(name), FirstOrdinal: 2}
		if !(Reader{}).Streams(opts.Path, data) {
			t.Fatalf("%s: not streamed", name)
		}
		want := harness.ParseFile(Reader{}, data, opts)
		for _, chunk := range []int{1, 100, 1 << 20} {
			got, n, err := harness.ParseStream(Reader{}, bytes.NewReader(data), chunk, 0, opts)
			if err != nil || n != int64(len(data)) {
				t.Fatalf("%s, chunk %d: read %d of %d bytes, %v", name, chunk, n, len(data), err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, chunk %d: streamed\n%+v\nwhole\n%+v", name, chunk, got, want)
			}
		}
	}
}

// TestGrownFileReadAgain: a session resumed appends to its file, and the
// file read again from its start holds the first parse's turns unchanged
// and the new ones after them.
func TestGrownFileReadAgain(t *testing.T) {
	data, err := os.ReadFile("testdata/resumed_appends.jsonl")
	if err != nil {
		t.Fatal(err)
	}
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
