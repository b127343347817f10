package amp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the parser, that what it returns
// keeps every reader's invariants, and that a prompt is never lost: a
// thread whose one user message is the prompt yields it.
func FuzzParse(f *testing.F) {
	harnesstest.SeedEach(f, 0, func(name string, data []byte) []any { return []any{data, name, ""} }, "*.thread")
	f.Add([]byte(`{"messages":[`), "cli_thread.thread", "fix the build")
	f.Add([]byte(`{"messages":{"a":1},"id":"T-x"}`), "broken.thread", "")
	f.Fuzz(func(t *testing.T, data []byte, name, prompt string) {
		h := Parse(data, harness.ParseOptions{Path: fixturePath(name)})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 1)
		words := strings.TrimSpace(prompt)
		if words == "" || !utf8.ValidString(words) {
			return
		}
		doc, _ := json.Marshal(map[string]any{"id": tid, "messages": []map[string]any{
			{"role": "user", "content": []map[string]string{{"type": "text", "text": words}}}}})
		h = Parse(doc, harness.ParseOptions{Path: fixturePath(name)})
		if len(h.Sessions) != 1 || len(h.Sessions[0].Messages) != 1 || h.Sessions[0].Messages[0].Text != words {
			t.Fatalf("prompt %q lost: %+v", words, h)
		}
	})
}
