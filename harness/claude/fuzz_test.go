package claude

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the reader, that it keeps the
// invariants every reader keeps, and that turns count user messages.
func FuzzParse(f *testing.F) {
	harnesstest.Seed(f, "*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		h := Parse(data, harness.ParseOptions{Path: fixtureDir + "11111111-2222-4333-8444-555555555555.jsonl"})
		harnesstest.CheckInvariants(t, h, 0, len(data))
		harnesstest.CheckTurns(t, h, "claude-")
	})
}
