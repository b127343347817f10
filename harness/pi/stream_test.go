package pi

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// TestStreamParsesWhatParseParses: a transcript parsed as its lines are
// read, in chunks of any size, is the transcript parsed whole: every
// fixture, one opening with a byte order mark, and one whose last line
// is still being written.
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
	first := inputs["pi_branch.jsonl"]
	inputs["bom"] = append([]byte("\xEF\xBB\xBF"), first...)
	inputs["partial last line"] = append(bytes.Clone(first), `{"type":"message","id":"zz","message":{"role":"user","content":"half`...)
	for name, data := range inputs {
		opts := harness.ParseOptions{Path: fixturePath(name), FirstOrdinal: 1}
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
	// The partial last line is left for the next read.
	h := harness.ParseFile(Reader{}, inputs["partial last line"], harness.ParseOptions{Path: fixturePath("pi_branch.jsonl")})
	if h.Sessions[0].End != int64(len(first)) || len(h.Warnings) != 0 {
		t.Errorf("session ends at %d (want %d), warnings %v", h.Sessions[0].End, len(first), h.Warnings)
	}
}
