package kiro

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// v2Prompt is a v2 session's prompt line, as the Kiro CLI writes it.
func v2Prompt(id, text string) string {
	return `{"version":"v1","kind":"Prompt","data":{"message_id":"` + id + `","content":[{"kind":"text","data":"` + text + `"}],"meta":{"timestamp":1791190800}}}` + "\n"
}

// TestIncrementalSessionFile: a session file read again unchanged is not
// read (its marker, the file's size and time, is known); one the CLI
// appended to is read again with the new turn; an unterminated last line
// is left until the CLI finishes it, without a warning.
func TestIncrementalSessionFile(t *testing.T) {
	p := harnesstest.WriteFile(t, filepath.Join(t.TempDir(), "sessions", "cli", convID+".jsonl"), v2Prompt("p1", "first"))
	read := func(unchanged func(id, marker string) bool) *harness.History {
		t.Helper()
		h, err := harness.ReadStore(context.Background(), Reader{}, p, harness.ParseOptions{Path: p, Unchanged: unchanged})
		if err != nil {
			t.Fatal(err)
		}
		harnesstest.CheckInvariants(t, h, 0, 0)
		return h
	}
	h := read(nil)
	if len(h.Sessions) != 1 || h.Sessions[0].ID != IDPrefix+convID || len(h.Sessions[0].Messages) != 1 || h.Sessions[0].Marker == "" {
		t.Fatalf("first read %+v", h.Sessions)
	}
	marker := h.Sessions[0].Marker
	known := func(id, m string) bool { return id == IDPrefix+convID && m == marker }
	if h := read(known); len(h.Sessions) != 1 || h.Sessions[0].Marker != marker || len(h.Sessions[0].Messages) > 0 {
		t.Fatalf("unchanged read %+v", h.Sessions)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.TrimSuffix(v2Prompt("p2", "second"), "}\n")); err != nil {
		t.Fatal(err)
	}
	h = read(known)
	if s := h.Sessions[0]; len(s.Messages) != 1 || s.Marker == marker || len(h.Warnings) > 0 {
		t.Fatalf("a line being written was read: %+v, %q", s, h.Warnings)
	}
	if _, err := f.WriteString("}\n"); err != nil {
		t.Fatal(err)
	}
	if s := read(known).Sessions[0]; len(s.Messages) != 2 || s.Messages[1].Text != "second" || s.Messages[1].Turn != 1 {
		t.Fatalf("appended turn %+v", s.Messages)
	}
}

// TestSessionFileEmpty: a session file with no message yet holds no
// session, and a missing one is an error, not a panic.
func TestSessionFileEmpty(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	p := harnesstest.WriteFile(t, filepath.Join(dir, "cli", convID+".jsonl"), `{"version":"v1","kind":"Clear","data":null}`+"\n")
	h, err := ReadSessionFile(p, harness.ParseOptions{})
	if err != nil || len(h.Sessions) > 0 {
		t.Fatalf("%+v, %v", h, err)
	}
	if _, err := ReadSessionFile(filepath.Join(dir, "ws", "sess_x", messagesName), harness.ParseOptions{}); err == nil {
		t.Error("a missing session file read")
	}
	if _, err := ReadSessionFile(filepath.Join(dir, "x.jsonl"), harness.ParseOptions{}); err == nil {
		t.Error("a file of another name read")
	}
}
