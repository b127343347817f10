package gemini

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the parser, that the session lies
// inside the input, that turns count user messages, and that a whole JSONL
// prompt line the rest of the file does not rewind or replace lands in a
// user message.
func FuzzParse(f *testing.F) {
	for _, fx := range harnesstest.Fixtures(f, 12, "*.jsonl", "*.json") {
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
		harnesstest.CheckInvariants(t, h, 0, len(data))
		harnesstest.CheckTurns(t, h, IDPrefix)
		for _, s := range h.Sessions {
			if s.ID == IDPrefix || s.Ordinal != 1 || s.Offset != 0 {
				t.Fatalf("ID %q ordinal %d offset %d", s.ID, s.Ordinal, s.Offset)
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

// FuzzPieces checks that any JSONL input, handed over in pieces after
// its Prescan, is the input parsed whole (harnesstest.PiecesAddUp), and
// that a parse fed other bytes than its Prescan read (a recording
// rewritten in between) neither panics nor leaves its bounds.
func FuzzPieces(f *testing.F) {
	for _, fx := range harnesstest.Fixtures(f, 11, "*.jsonl") {
		if data, err := os.ReadFile(fx); err == nil {
			f.Add(data, []byte(head+turnLines(0, 3)))
		}
	}
	f.Add([]byte(rewritten(6)), []byte(head+turnLines(2, 5)))
	f.Fuzz(func(t *testing.T, data, other []byte) {
		path := fixturePath("session-2026-05-01T10-00-abcdef12.jsonl")
		harnesstest.PiecesAddUp(t, "input", Reader{}, data, harness.ParseOptions{Path: path})
		h := harnesstest.ParseAfterPrescan(t, Reader{}, data, other, harness.ParseOptions{Path: path})
		harnesstest.CheckInvariants(t, h, 0, len(other))
		harnesstest.CheckTurns(t, h, IDPrefix)
	})
}
