package crush

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse feeds arbitrary bytes, as the parts of a user, an assistant
// and a tool message with arbitrary times, through the session builder:
// nothing panics, the session keeps every reader's invariants (messages
// with a role and text, records with a value and outcomes within their
// bounds, turns that count prompts), and a typed prompt that follows the
// arbitrary rows is never lost.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`[{"type":"text","data":{"text":"why?"}},{"type":"finish","data":{"reason":"stop","time":0}}]`),
		[]byte(`[{"type":"text","data":{"text":"look"}},{"type":"tool_call","data":{"id":"c1","name":"bash","input":"{\"command\":\"go test ./...\"}","finished":true}},{"type":"tool_call","data":{"id":"c2","name":"multiedit","input":"{\"file_path\":\"/p/a.go\",\"edits\":[{\"old_string\":\"a\",\"new_string\":\"b\"},{\"old_string\":\"c\",\"new_string\":\"d\"}]}"}}]`),
		[]byte(`[{"type":"tool_result","data":{"tool_call_id":"c1","content":"FAIL\n\nExit code 1\n\n<cwd>/p</cwd>","metadata":"{\"start_time\":1}","is_error":false}},{"type":"tool_result","data":{"tool_call_id":"c2","content":"ok","metadata":"{\"edits_failed\":[{\"index\":1}]}"}}]`),
		int64(1754564150))
	f.Add([]byte(`[{"type":"shell_command","data":{"command":"ls","output":"a\nb","exit_code":2}}]`),
		[]byte(`[{"data":{"id":"c3","input":"{\"file_path\":\"/p/b.go\",\"content\":\"x\"}","name":"write"},"type":"tool_call"},{"type":"tool_call","data":{"id":"c4","name":"view","input":"{\"file_path\":\"/p/c.go\"}"}}]`),
		[]byte(`[{"type":"tool_result","data":{"tool_call_id":"c4","content":"missing","is_error":true}},{"type":"tool_result","data":{"tool_call_id":"c3","content":"Command was aborted before completion"}}]`),
		int64(1754564150123))
	f.Add([]byte(`{"type":"text"}`), []byte("[[[[[[[[[[\x00\xff"), []byte(`[{"type":"tool_result","data":{"tool_call_id":"c1","metadata":"\"\\u00"}}]`), int64(-1))
	f.Fuzz(func(t *testing.T, user, assistant, tool []byte, created int64) {
		msgs := []message{
			{Role: "user", Created: created, Parts: user},
			{Role: "assistant", Created: created, Parts: assistant},
			{Role: "tool", Created: created, Parts: tool},
			{Role: "assistant", Created: created, Parts: assistant, Summary: true},
			{Role: "user", Created: 1754564150, Parts: []byte(`[{"type":"text","data":{"text":"typed probe"}}]`)},
		}
		skip := skipped{}
		s := buildSession("crush-11111111-1111-4111-8111-111111111111", sessionRow{Created: created}, "/p", msgs, skip)
		h := &harness.History{Sessions: []harness.Session{s}, Warnings: skip.list()}
		harnesstest.CheckInvariants(t, h, 0, 0)
		harnesstest.CheckTurns(t, h, IDPrefix)
		last := s.Messages[len(s.Messages)-1]
		if last.Role != harness.User || last.Text != "typed probe" {
			t.Fatalf("the prompt was lost: %+v", s.Messages)
		}
	})
}
