package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the reader, that it keeps the
// invariants every reader keeps, and that turns count user messages.
func FuzzParse(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/*.jsonl")
	for _, fx := range fixtures {
		if data, err := os.ReadFile(fx); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := Parse(data, harness.ParseOptions{Path: fixtureDir + "11111111-2222-4333-8444-555555555555.jsonl"})
		harnesstest.CheckInvariants(t, h, 0, len(data))
		for _, s := range h.Sessions {
			if !strings.HasPrefix(s.ID, "claude-") {
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
