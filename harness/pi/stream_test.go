package pi

import (
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
