package hermes

import (
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse feeds arbitrary row values, as a store's messages hold them,
// through the session builder: a user's content, an assistant's content
// and tool_calls, and the tool row answering its first call. Nothing
// panics, messages and records keep every reader's invariants, turns
// count user messages, and a typed prompt that follows is never lost.
func FuzzParse(f *testing.F) {
	f.Add("why?", "ok", `[{"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\":\"ls\"}"}}]`, `{"output": "a\nb", "exit_code": 0, "error": null}`)
	f.Add(`[{"type": "text", "text": "look"}, {"type": "image_url"}]`, "", `[{"id": "c1", "function": {"name": "patch", "arguments": "{\"mode\":\"patch\",\"patch\":\"*** Update File: a\\n\"}"}}]`, `{"success": false, "error": "no"}`)
	f.Add("[CONTEXT COMPACTION", "[CONTEXT COMPACTION x", `[{"id": "c1", "function": {"name": "write_file", "arguments": {"path": "/p/a", "content": "\u00e9"}}}]`, `{"bytes_written": 2}`+"\n\n[Tool loop warning]")
	f.Add(cronHeader+" x]\n\n", "\x00", `[{"id": "c1", "function": {"name": "read_file", "arguments": "{\"path\":\"\"}"}}, null, 1]`, `{"exit_code": -1e308, "error": {"x": 1}}`)
	f.Fuzz(func(t *testing.T, user, answer, calls, result string) {
		rows := []messageRow{
			{Role: "user", Content: user, Time: 1, Active: true},
			{Role: "assistant", Content: answer, ToolCalls: calls, Time: 2, Active: true},
			{Role: "tool", Content: result, ToolCallID: "c1", Time: 3, Active: true},
			{Role: "user", Content: "typed probe", Time: 4, Active: true},
		}
		s := buildSession("", sessionRow{ID: "20260801_093000_a1b2c3d4", Cwd: "/p"}, rows)
		h := &harness.History{Sessions: []harness.Session{s}}
		harnesstest.CheckInvariants(t, h, 0, 0)
		harnesstest.CheckTurns(t, h, IDPrefix)
		if !slices.ContainsFunc(s.Messages, func(m harness.Message) bool { return m.Role == harness.User && m.Text == "typed probe" }) {
			t.Fatal("a typed prompt was lost")
		}
	})
}
