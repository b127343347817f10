package kiro

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse feeds arbitrary bytes as a conversation's ConversationState
// and as a tool call's args and result inside a well-formed one (an IDE
// chat is continuedev's to parse, and its fuzz target's): nothing panics, the invariants every reader keeps hold, turns
// count prompts, and a prompt typed after the call is never lost.
func FuzzParse(f *testing.F) {
	f.Add([]byte(conversationJSON(convID, "hi")), "hello")
	f.Add([]byte(`{"command":"str_replace","path":"/p/a.go","old_str":"\ud800","new_str":"b"}`), "")
	f.Add([]byte(`{"operations":[{"path":"/p/x","image_paths":["/p/y.png"]},{"mode":"Search"}]}`), "\x00")
	f.Add([]byte(`{"command":"go test","exit_status":"-1","stdout":"x"}`), "ok")
	f.Add([]byte(`{"sessionId":"s","history":[{"message":{"role":"user","content":[{"type":"text","text":"a"}]}}]}`), "s")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		var warnings []string
		if s, ok := parseConversation(data, "/p", &warnings); ok {
			s.ID = IDPrefix + convID
			harnesstest.CheckInvariants(t, &harness.History{Sessions: []harness.Session{s}}, 0, 0)
		}
		args := json.RawMessage(`{}`)
		if json.Valid(data) {
			args = data
		}
		call := func(name string) map[string]any {
			return map[string]any{"id": "t-" + name, "name": name, "args": args}
		}
		state := map[string]any{"conversation_id": convID, "history": []any{
			map[string]any{
				"user":      map[string]any{"content": map[string]any{"Prompt": map[string]any{"prompt": text}}, "timestamp": text},
				"assistant": map[string]any{"ToolUse": map[string]any{"content": text, "tool_uses": []any{call("fs_write"), call("fs_read"), call("execute_bash")}}},
			},
			map[string]any{
				"user": map[string]any{"content": map[string]any{"ToolUseResults": map[string]any{"tool_use_results": []any{
					map[string]any{"tool_use_id": "t-execute_bash", "status": text, "content": []any{map[string]any{"Json": args}, map[string]any{"Text": text}}},
					map[string]any{"tool_use_id": "t-fs_write", "status": "Error", "content": []any{map[string]any{"Json": args}}},
				}}}},
				"assistant": map[string]any{"Response": map[string]any{"content": text}},
			},
			map[string]any{
				"user":      map[string]any{"content": map[string]any{"Prompt": map[string]any{"prompt": "typed probe"}}},
				"assistant": map[string]any{"Response": map[string]any{"content": "done"}},
			},
		}}
		wrapped, err := json.Marshal(state)
		if err != nil {
			t.Skip(err)
		}
		s, ok := parseConversation(wrapped, "/p", &warnings)
		if !ok {
			t.Fatalf("a well-formed conversation was refused: %q", warnings)
		}
		s.ID = IDPrefix + convID
		h := &harness.History{Sessions: []harness.Session{s}}
		harnesstest.CheckInvariants(t, h, 0, 0)
		harnesstest.CheckTurns(t, h, IDPrefix)
		if !slices.ContainsFunc(s.Messages, func(m harness.Message) bool { return m.Role == harness.User && m.Text == "typed probe" }) {
			t.Fatalf("the typed probe was lost: %+v", s.Messages)
		}
	})
}
