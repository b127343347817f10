package gemini

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// FuzzParse checks that no input panics the parser, that the session lies
// inside the input, that turns count user messages, and that a whole JSONL
// prompt line the rest of the file does not rewind or replace lands in a
// user message.
func FuzzParse(f *testing.F) {
	for _, fx := range fixtures(f) {
		if data, err := os.ReadFile(fx); err == nil {
			f.Add(data, strings.HasSuffix(fx, ".json"))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, legacy bool) {
		path := fixturePath("session-2026-05-01T10-00-abcdef12.jsonl")
		if legacy {
			path = strings.TrimSuffix(path, "l")
		}
		h := Parse(data, Options{Path: path, Project: fixtureResolver})
		if len(h.Sessions) > 1 {
			t.Fatalf("%d sessions from one recording", len(h.Sessions))
		}
		for _, s := range h.Sessions {
			if s.ID == IDPrefix || s.ID == "" || s.Ordinal != 1 {
				t.Fatalf("ID %q ordinal %d", s.ID, s.Ordinal)
			}
			if s.Offset != 0 || s.End < 0 || s.End > int64(len(data)) {
				t.Fatalf("session range %d..%d of %d bytes", s.Offset, s.End, len(data))
			}
			for _, r := range s.Records {
				if (r.Kind != harness.FileRecord && r.Kind != harness.CommandRecord) || strings.TrimSpace(r.Value) == "" {
					t.Fatalf("bad record %+v", r)
				}
			}
			turn := -1
			for _, m := range s.Messages {
				if (m.Role != harness.User && m.Role != harness.Assistant) || strings.TrimSpace(m.Text) == "" {
					t.Fatalf("bad message %+v", m)
				}
				if m.Role == harness.User {
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
		if legacy || bytes.Contains(data, []byte("$rewindTo")) || bytes.Contains(data, []byte("$set")) {
			return
		}
		// A lone well-formed prompt line with a fresh id must be read.
		const probe = `{"id":"fuzz-probe-id","type":"user","content":"fuzz probe prompt"}`
		if bytes.Contains(data, []byte("fuzz-probe-id")) {
			return
		}
		withProbe := append(append(bytes.TrimRight(append([]byte{}, data...), " \t\r\n"), '\n'), probe+"\n"...)
		if !bytes.HasSuffix(bytes.TrimRight(data, " \t\r\n"), []byte("}")) && len(bytes.TrimSpace(data)) > 0 {
			return
		}
		h = Parse(withProbe, Options{Path: path})
		found := false
		for _, s := range h.Sessions {
			for _, m := range s.Messages {
				found = found || (m.Role == harness.User && m.Text == "fuzz probe prompt")
			}
		}
		if !found {
			t.Fatalf("a prompt line appended to the input was lost")
		}
	})
}
