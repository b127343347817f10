package copilot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the parser, that every session
// lies inside the input and keeps the invariants all readers keep, that
// turns count user messages, and that a whole user.message line appended
// to the input is never lost.
func FuzzParse(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/*.jsonl")
	if len(fixtures) == 0 {
		f.Fatal("no fixtures")
	}
	for _, fx := range fixtures {
		if data, err := os.ReadFile(fx); err == nil {
			f.Add(data)
		}
	}
	path := fixturePath("no_start_fuzz.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: path})
		harnesstest.CheckInvariants(t, h, 0, len(data))
		for _, s := range h.Sessions {
			turn := -1
			for _, m := range s.Messages {
				if m.Role == harness.User {
					turn++
				}
				if m.Turn != turn {
					t.Fatalf("session %s: message at line %d has turn %d, want %d", s.ID, m.Line, m.Turn, turn)
				}
			}
		}
		// A prompt line after the input, which ends on a whole line, is
		// read: into the file's own session, whatever came before.
		const probe = `{"type":"user.message","data":{"content":"fuzz probe prompt"}}`
		if bytes.Contains(data, []byte("fuzz probe prompt")) {
			return
		}
		withProbe := append(bytes.Clone(data), '\n')
		withProbe = append(withProbe, probe+"\n"...)
		h = harness.ParseFile(Reader{}, withProbe, harness.ParseOptions{Path: path})
		for _, s := range h.Sessions {
			for _, m := range s.Messages {
				if !s.Subagent && m.Role == harness.User && m.Text == "fuzz probe prompt" {
					return
				}
			}
		}
		t.Fatalf("a prompt line appended to the input was lost: %d sessions, refused %q", len(h.Sessions), h.Refused)
	})
}
