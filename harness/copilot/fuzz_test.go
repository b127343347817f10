package copilot

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the parser, that every session
// lies inside the input and keeps the invariants all readers keep, that
// turns count user messages, and that a whole user.message line appended
// to the input is never lost.
func FuzzParse(f *testing.F) {
	harnesstest.SeedEach(f, 1, func(_ string, data []byte) []any { return []any{data} }, "*.jsonl")
	path := fixturePath("no_start_fuzz.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 0)
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

// FuzzPieces checks that any input, handed over in pieces after its
// Prescan, is the input parsed whole (harnesstest.PiecesAddUp), and that
// a parse fed other bytes than its Prescan read (a file rewritten in
// between) neither panics nor breaks a reader's invariants.
func FuzzPieces(f *testing.F) {
	harnesstest.SeedEach(f, 1, func(_ string, data []byte) []any { return []any{data, []byte(lateOutcomes(3))} }, "*.jsonl")
	f.Add([]byte(lateOutcomes(9)), []byte(lateOutcomes(4)))
	f.Fuzz(func(t *testing.T, data, other []byte) {
		path := fixturePath("events.jsonl")
		harnesstest.PiecesAddUp(t, "input", Reader{}, data, harness.ParseOptions{Path: path})
		h := harnesstest.ParseAfterPrescan(t, Reader{}, data, other, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(other), Reader{}, 1)
	})
}
