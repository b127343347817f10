package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// TestStreamParsesWhatParseParses: a JSONL recording parsed as its lines
// are read, in chunks of any size, is the recording parsed whole: every
// fixture, one opening with a byte order mark, and one whose last line is
// still being written.
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
	inputs["partial last line"] = append(bytes.Clone(first), `{"id":"m9","type":"user","content":"half`...)
	path := "/home/u/.gemini/tmp/abc/chats/session-1.jsonl"
	if !(Reader{}).Streams(path, nil) || (Reader{}).Streams("/home/u/.gemini/tmp/abc/chats/session-1.json", nil) {
		t.Fatal("Streams: want a JSONL recording, and only it")
	}
	for name, data := range inputs {
		opts := harness.ParseOptions{Path: path, Offset: 0, FirstOrdinal: 2}
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
