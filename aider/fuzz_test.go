package aider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input panics the parser, that sessions tile the
// input in order, and that every user line ending in aider's two spaces
// outside any fence or tool write lands in a message.
func FuzzParse(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/*.md")
	for _, fx := range fixtures {
		if data, err := os.ReadFile(fx); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(small))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := Parse(data, Options{Path: fixturePath})
		// The input's own lines: a line NUL removal made look like a header
		// was no header in the file (aider splits on the bytes as written).
		raw := map[string]bool{}
		for _, l := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
			raw[strings.TrimSpace(l)] = true
		}
		var prev int64
		for i, s := range h.Sessions {
			if s.Offset < prev || s.End < s.Offset || s.End > int64(len(data)) {
				t.Fatalf("session %d range %d..%d after %d (len %d)", i, s.Offset, s.End, prev, len(data))
			}
			prev = s.End
			if s.Ordinal <= 0 || s.ID == "" {
				t.Fatalf("session %d: ordinal %d id %q", i, s.Ordinal, s.ID)
			}
			turn := -1
			for _, m := range s.Messages {
				if m.Role == User {
					turn++
					if strings.TrimSpace(m.Text) == "" {
						t.Fatalf("empty user message at line %d", m.Line)
					}
				}
				if m.Turn != turn {
					t.Fatalf("message at line %d has turn %d, want %d", m.Line, m.Turn, turn)
				}
				// A user may type "# aider chat started at" after "#### ";
				// assistant text never holds a header line of the file (its
				// first line is trimmed, so an indented one may start it).
				for i, l := range strings.Split(m.Text, "\n") {
					if m.Role == Assistant && i > 0 && strings.HasPrefix(l, headerPrefix) && raw[strings.TrimSpace(l)] {
						t.Fatalf("message at line %d holds a session header", m.Line)
					}
				}
			}
		}
		ids := map[string]bool{}
		for _, s := range h.Sessions {
			if ids[s.ID] {
				t.Fatalf("duplicate session ID %s", s.ID)
			}
			ids[s.ID] = true
		}
	})
}
