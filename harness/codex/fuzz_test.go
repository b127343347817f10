package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the reader, that it keeps the
// invariants every reader keeps, and that a rollout is one session whose
// turns count its user messages.
func FuzzParse(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/*.jsonl")
	for _, fx := range fixtures {
		if data, err := os.ReadFile(fx); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(legacyFixture))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := Parse(data, harness.ParseOptions{Path: fixtureDir + "rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl"})
		harnesstest.CheckInvariants(t, h, 0, len(data))
		if len(h.Sessions) > 1 {
			t.Fatalf("%d sessions from one rollout", len(h.Sessions))
		}
		for _, s := range h.Sessions {
			if !strings.HasPrefix(s.ID, "codex-") {
				t.Fatalf("session ID %q", s.ID)
			}
			turn := -1
			for _, m := range s.Messages {
				if m.Role == harness.User {
					turn++
				}
				if m.Turn != turn {
					t.Fatalf("message at line %d has turn %d, want %d", m.Line, m.Turn, turn)
				}
			}
		}
	})
}
