package cursor

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// FuzzParse feeds arbitrary transcript bytes, and arbitrary bubble and
// composerData values, through the decoders and session builders:
// nothing panics, messages have a role and text, turns count user
// messages, and a typed prompt that follows the arbitrary bytes (in a
// transcript line, in a bubble) is never lost.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Wednesday, Jun 17, 2026, 8:14 PM (UTC+8)</timestamp>\n<user_query>\nhi\n</user_query>"}]}}`+"\n"), []byte(`{"type":2,"text":"ok","createdAt":"2025-12-25T19:35:20Z"}`), []byte(`{"createdAt":1766691308486,"fullConversationHeadersOnly":[{"bubbleId":"a"}]}`), []byte(`{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool-call","toolName":"read_file","args":{"path":"/p/a"}}]}`))
	f.Add([]byte(`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Shell","input":{"command":"ls","working_directory":"/p"}},{"type":"tool_use","name":"Read","input":{"limit":"45","path":"/p/a"}}]}}`+"\n"+`{"type":"turn_ended"}`), []byte(`{"type":2,"toolFormerData":{"name":"edit_file_v2","status":"completed","params":"{\"relativeWorkspacePath\":\"/p/a.go\"}"}}`), []byte(`{"conversation":[{"type":1,"text":"x"}],"conversationMap":{"a":{"type":2,"text":"y"}}}`), []byte("\n \x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20(\x05\x12\xff"))
	f.Add([]byte("{\"role\":\"user\",\"message\":{\"content\":\"\\ud83d <user_query>\"}}\n{\"role"), []byte(`null`), []byte(`{"fullConversationHeadersOnly":[{"bubbleId":1},{}],"createdAt":"x"}`), []byte(`{"role":"user","content":"<user_info>The absolute path of the user's workspace is /p. x</user_info>"}`))
	f.Add([]byte(`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{}}]}}`), []byte(`{"type":2,"codeBlocks":[{"uri":"file:///c%3A/x"},{"uri":{"scheme":"vscode-remote","path":"/y"}}],"timingInfo":{"clientRpcSendTime":-5}}`), []byte(`[]`), []byte(`{"role":"user","content":[{"type":"text","text":"<user_query>\n</user_query>"}]}`))
	f.Fuzz(func(t *testing.T, transcript, bubbleValue, composerValue, chatValue []byte) {
		probe, _ := json.Marshal(map[string]any{"role": "user", "message": map[string]any{"content": []any{map[string]any{"type": "text", "text": "<timestamp>Monday, Jan 5, 2026, 9:00 AM (UTC)</timestamp>\n<user_query>\ntyped probe\n</user_query>"}}}})
		data := append(append(append([]byte{}, transcript...), '\n'), probe...)
		data = append(data, '\n')
		id := transcriptPrefix + "00000000-0000-4000-8000-000000000000"
		s, _ := parseTranscript(data, id, time.UTC)
		s.ID = id // as Read names a transcript's session
		checkSession(t, s, "typed probe")

		var sc jsonscan.Scanner
		c, _ := decodeComposer(&sc, composerValue)
		c.ID = "00000000-0000-4000-8000-000000000000"
		b, _ := decodeBubble(&sc, bubbleValue)
		rows := map[string]bubble{"a": b, "probe": {Type: 1, Text: "typed probe"}}
		c.Headers = append(c.Headers, "probe")
		c.Conversation = conversation(c, rows, []string{"a", "probe"})
		s, _ = buildSession(IDPrefix+c.ID, c, "/p", "")
		checkSession(t, s, "typed probe")

		for _, id := range rootMessages(chatValue) {
			if !harness.IsHex(id, 64) {
				t.Fatalf("root id %q", id)
			}
		}
		m, _ := decodeChatMessage(chatValue)
		probeMsg := chatMessage{Role: "user", Text: "<user_query>\ntyped probe\n</user_query>"}
		s, _ = buildChat(agentPrefix+"00000000-0000-4000-8000-000000000000", "", chatMeta{}, []chatMessage{m, probeMsg})
		checkSession(t, s, "typed probe")
	})
}

// checkSession fails t when s breaks the invariants (harnesstest's
// CheckInvariants and CheckTurns) or lost the prompt.
func checkSession(t *testing.T, s harness.Session, prompt string) {
	t.Helper()
	h := &harness.History{Sessions: withoutRanges([]harness.Session{s})}
	harnesstest.CheckInvariants(t, h, 0, 0)
	harnesstest.CheckTurns(t, h, "")
	for _, m := range s.Messages {
		if m.Role == harness.User && m.Text == prompt {
			return
		}
	}
	t.Fatalf("the prompt %q was lost: %+v", prompt, s.Messages)
}
