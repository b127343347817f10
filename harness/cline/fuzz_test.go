package cline

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the parser, that what it returns
// keeps every reader's invariants and counts turns by user messages, and
// that a prompt is never lost: a history of whole JSON messages, each a
// user message whose text is <task>-wrapped words, yields each one.
func FuzzParse(f *testing.F) {
	harnesstest.SeedEach(f, 0, func(name string, data []byte) []any { return []any{data, name, ""} }, "*.history")
	f.Add([]byte(`[]`), "cline_task.history", "fix the build")
	f.Add([]byte(`{"messages":[`), "sdk_wrapped.history", "<user_input>")
	f.Fuzz(func(t *testing.T, data []byte, name, prompt string) {
		h := Parse(data, harness.ParseOptions{Path: fixturePath(name)})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 1)
		// The prompt, wrapped as the extension wraps a task, is kept.
		words := strings.TrimSpace(prompt)
		if words == "" || !utf8.ValidString(words) || strings.ContainsAny(words, "<>") {
			return
		}
		legacy := strings.HasPrefix(name, "cline_") || strings.HasPrefix(name, "roo_") || strings.HasPrefix(name, "kilo_")
		var doc []byte
		msg := []map[string]any{{"role": "user", "content": []map[string]string{{"type": "text", "text": "<task>\n" + words + "\n</task>"}}}}
		if legacy {
			doc, _ = json.Marshal(msg)
		} else {
			msg[0]["content"] = []map[string]string{{"type": "text", "text": words}}
			doc, _ = json.Marshal(map[string]any{"sessionId": "fuzz_1", "messages": msg})
		}
		h = Parse(doc, harness.ParseOptions{Path: fixturePath(name)})
		if len(h.Sessions) != 1 || len(h.Sessions[0].Messages) != 1 || h.Sessions[0].Messages[0].Text != words {
			t.Fatalf("prompt %q lost: %+v", words, h)
		}
	})
}
