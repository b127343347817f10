package kiro

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse feeds arbitrary bytes as a conversation's ConversationState,
// as a v2 and a v3 session file, and as a tool call's args and result
// inside a well-formed conversation and session file (an IDE chat is
// continuedev's to parse, and its fuzz target's): nothing panics, the
// invariants every reader keeps hold, turns count prompts, and a prompt
// typed after the call is never lost.
func FuzzParse(f *testing.F) {
	f.Add([]byte(conversationJSON(convID, "hi")), "hello")
	f.Add([]byte(`{"command":"str_replace","path":"/p/a.go","old_str":"\ud800","new_str":"b"}`), "")
	f.Add([]byte(`{"operations":[{"path":"/p/x","image_paths":["/p/y.png"]},{"mode":"Search"}]}`), "\x00")
	f.Add([]byte(`{"command":"go test","exit_status":"-1","stdout":"x"}`), "ok")
	f.Add([]byte(`{"sessionId":"s","history":[{"message":{"role":"user","content":[{"type":"text","text":"a"}]}}]}`), "s")
	f.Add([]byte(v2Prompt("p", "hi")+`{"kind":"AssistantMessage","data":{"message_id":"a","content":[{"kind":"toolUse","data":{"toolUseId":"t","name":"write","input":{"command":"strReplace","path":"/p/a","oldStr":"a","newStr":"b"}}}]}}`), "x")
	f.Add([]byte(`{"id":"e","timestamp":"2026-10-06T08:00:02Z","payload":{"type":"user","content":"hi"}}`+"\n"+`{"role":"assistant","content":[{"text":"a"}]}`), "")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		for _, v3 := range []bool{false, true} {
			s := harness.Session{ID: IDPrefix + convID, Project: "/p"}
			if _, err := parseSession(bytes.NewReader(data), &s, v3); err != nil {
				t.Fatal(err)
			}
			h := &harness.History{Sessions: []harness.Session{s}}
			harnesstest.CheckInvariants(t, h, 0, 0)
			harnesstest.CheckTurns(t, h, IDPrefix)
		}
		fuzzSessionFile(t, data, text)
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

// fuzzSessionFile writes text and data into a well-formed v2 session
// file, as a prompt, a tool call's input and its result, then reads it.
func fuzzSessionFile(t *testing.T, data []byte, text string) {
	input := json.RawMessage(`{}`)
	if json.Valid(data) {
		input = data
	}
	var lines []byte
	for _, r := range []map[string]any{
		{"kind": "Prompt", "data": map[string]any{"content": []any{map[string]any{"kind": "text", "data": text}}, "meta": map[string]any{"timestamp": 1791190800}}},
		{"kind": "AssistantMessage", "data": map[string]any{"message_id": text, "content": []any{
			map[string]any{"kind": "text", "data": text},
			map[string]any{"kind": "toolUse", "data": map[string]any{"toolUseId": "t1", "name": "shell", "input": input}},
			map[string]any{"kind": "toolUse", "data": map[string]any{"toolUseId": "t2", "name": "write", "input": input}},
			map[string]any{"kind": "toolUse", "data": map[string]any{"toolUseId": "t3", "name": "read", "input": input}}}}},
		{"kind": "ToolResults", "data": map[string]any{"content": []any{
			map[string]any{"kind": "toolResult", "data": map[string]any{"toolUseId": "t1", "status": text, "content": []any{map[string]any{"kind": "json", "data": input}, map[string]any{"kind": "text", "data": text}}}},
			map[string]any{"kind": "toolResult", "data": map[string]any{"toolUseId": "t2", "status": "error", "content": []any{map[string]any{"kind": "json", "data": input}}}}}}},
		{"kind": "Prompt", "data": map[string]any{"content": []any{map[string]any{"kind": "text", "data": "typed probe"}}}},
	} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Skip(err)
		}
		lines = append(append(lines, b...), '\n')
	}
	s := harness.Session{ID: IDPrefix + convID, Project: "/p"}
	if _, err := parseSession(bytes.NewReader(lines), &s, false); err != nil {
		t.Fatal(err)
	}
	h := &harness.History{Sessions: []harness.Session{s}}
	harnesstest.CheckInvariants(t, h, 0, 0)
	harnesstest.CheckTurns(t, h, IDPrefix)
	if !slices.ContainsFunc(s.Messages, func(m harness.Message) bool { return m.Role == harness.User && m.Text == "typed probe" }) {
		t.Fatalf("the typed probe was lost: %+v", s.Messages)
	}
}
