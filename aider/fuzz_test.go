package aider

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the parser, that sessions tile the
// input in order, and that every user line ending in aider's two spaces
// outside any fence or tool write lands in a message.
func FuzzParse(f *testing.F) {
	harnesstest.Seed(f, "*.md")
	f.Add([]byte(small))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := Parse(data, Options{Path: fixturePath})
		// Every line of the file that starts with the header, byte for
		// byte as written (a BOM opens the file, not its first line),
		// starts a session, and no other line does: a line that NUL
		// removal or trimming made look like a header is text.
		headers := 0
		for _, l := range strings.Split(strings.TrimPrefix(string(data), "\xEF\xBB\xBF"), "\n") {
			if strings.HasPrefix(l, headerPrefix) {
				headers++
			}
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
			}
		}
		withHeader := 0
		for _, s := range h.Sessions {
			if s.Header != "" {
				if !strings.HasPrefix(s.Header, headerPrefix) {
					t.Fatalf("session %s header %q", s.ID, s.Header)
				}
				withHeader++
			}
		}
		if withHeader != headers {
			t.Fatalf("%d sessions start at a header, the file has %d header lines", withHeader, headers)
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
