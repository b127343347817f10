package codex

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the reader, that it keeps the
// invariants every reader keeps, and that a rollout is one session whose
// turns count its user messages.
func FuzzParse(f *testing.F) {
	harnesstest.Seed(f, "*.jsonl")
	f.Add([]byte(legacyFixture))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := Parse(data, harness.ParseOptions{Path: fixtureDir + "rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl"})
		harnesstest.CheckInvariants(t, h, 0, len(data))
		if len(h.Sessions) > 1 {
			t.Fatalf("%d sessions from one rollout", len(h.Sessions))
		}
		harnesstest.CheckTurns(t, h, "codex-")
	})
}
