package continuedev

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the parser, that what it returns
// keeps every reader's invariants and counts turns by prompts, and that a
// prompt is never lost: a session whose history holds one user entry,
// as the extensions write it (text parts and the editor's document) or as
// cn does (a string), yields it.
func FuzzParse(f *testing.F) {
	harnesstest.SeedEach(f, 9, func(name string, data []byte) []any { return []any{data, name, ""} }, "*.session")
	f.Add([]byte(`{"sessionId":"s","history":[{"message":{"role":"user","content":"x"}}`), "cli_serve.session", "fix the build")
	f.Add([]byte(`{"history":[{"message":{"role":"assistant","toolCalls":[{"id":"1","function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}]}},{"message":{"role":"tool","toolCallId":"1","content":"a"}}]}`), "x.session", "")
	f.Fuzz(func(t *testing.T, data []byte, name, prompt string) {
		path := fixturePath(t, name)
		h := Parse(data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 1)
		words := strings.TrimSpace(prompt)
		if words == "" || !utf8.ValidString(words) || words == "continue" {
			return
		}
		ide := map[string]any{"role": "user", "content": []map[string]string{{"type": "text", "text": words}}}
		doc := map[string]any{"type": "doc", "content": []any{map[string]any{"type": "paragraph", "content": []any{map[string]string{"type": "text", "text": words}}}}}
		for _, entry := range []map[string]any{
			{"message": ide, "contextItems": []any{}, "editorState": doc},
			{"message": map[string]any{"role": "user", "content": words}, "contextItems": []any{}, "editorState": words},
		} {
			body, _ := json.Marshal(map[string]any{"sessionId": "fuzz-1", "workspaceDirectory": "/w", "history": []any{entry}})
			h := Parse(body, harness.ParseOptions{Path: path})
			if len(h.Sessions) != 1 || len(h.Sessions[0].Messages) != 1 || h.Sessions[0].Messages[0].Text != words {
				t.Fatalf("prompt %q lost: %s → %+v", words, body, h)
			}
		}
	})
}
