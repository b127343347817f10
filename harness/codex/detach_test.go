package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestParsedHistoriesShareNoBytesWithTheirInput: the decoder reads lines
// without copying them (ZeroCopy); a parse that kept one of their strings
// would keep the whole of a history read whole in memory with it.
// Overwriting each fixture's bytes must leave its parse as it was.
func TestParsedHistoriesShareNoBytesWithTheirInput(t *testing.T) {
	for _, p := range harnesstest.Fixtures(t, 1, "*.jsonl") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: "/h/" + filepath.Base(p)})
		before, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		copy(data, bytes.Repeat([]byte("#"), len(data)))
		if after, _ := json.Marshal(h); !bytes.Equal(before, after) {
			t.Errorf("%s: overwriting the input changed its parse:\nbefore %s\nafter  %s", p, before, after)
		}
	}
}
