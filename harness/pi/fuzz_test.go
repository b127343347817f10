package pi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the parser, that what it returns
// keeps every reader's invariants and counts turns by user messages, and
// that a prompt is never lost: a user message entry appended as a whole
// line to any input that ends with a whole line is read, its text whole.
func FuzzParse(f *testing.F) {
	harnesstest.SeedEach(f, 0, func(name string, data []byte) []any { return []any{data, name, "water the ferns"} }, "*.jsonl")
	f.Add([]byte(`{"type":"session","id":"x"}`+"\n"), "openclaw_x.jsonl", "[Sun 2026-04-19 21:12 MDT] hi")
	f.Fuzz(func(t *testing.T, data []byte, name, prompt string) {
		path := fixturePath(name)
		h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 1)
		words := strings.TrimSpace(prompt)
		if words == "" || !utf8.ValidString(words) || strings.ContainsRune(words, utf8.RuneError) {
			return
		}
		if AgentOf(path) == OpenClaw && stripEnvelope(words) != words {
			return
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			return
		}
		line, _ := json.Marshal(map[string]any{"type": "message", "id": "fuzzprob", "parentId": nil, "timestamp": "2026-05-05T12:00:00Z",
			"message": map[string]any{"role": "user", "content": []map[string]string{{"type": "text", "text": words}}}})
		with := append(bytes.Clone(data), append(line, '\n')...)
		h = harness.ParseFile(Reader{}, with, harness.ParseOptions{Path: path})
		if len(h.Sessions) != 1 {
			if len(h.Refused) > 0 {
				return // a header of another shape names the session
			}
			t.Fatalf("prompt %q lost: no session", words)
		}
		msgs := h.Sessions[0].Messages
		if len(msgs) == 0 || msgs[len(msgs)-1].Role != harness.User || msgs[len(msgs)-1].Text != words {
			t.Fatalf("prompt %q lost: %+v", words, msgs)
		}
	})
}

// FuzzPieces checks that any input, handed over in pieces after its
// Prescan, is the input parsed whole (harnesstest.PiecesAddUp), and that
// a parse fed other bytes than its Prescan read (a transcript rewritten
// in between) neither panics nor breaks a reader's invariants.
func FuzzPieces(f *testing.F) {
	harnesstest.SeedEach(f, 0, func(name string, data []byte) []any { return []any{data, []byte(lateResults(3))} }, "*.jsonl")
	f.Add([]byte(lateResults(12)), []byte(lateResults(4)))
	f.Fuzz(func(t *testing.T, data, other []byte) {
		path := fixturePath("pi_branch.jsonl")
		harnesstest.PiecesAddUp(t, "input", Reader{}, data, harness.ParseOptions{Path: path})
		h := harnesstest.ParseAfterPrescan(t, Reader{}, data, other, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(other), Reader{}, 1)
	})
}
