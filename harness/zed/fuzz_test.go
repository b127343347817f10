package zed

import (
	"encoding/json"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse feeds arbitrary bytes through the session builder, as a
// thread's whole document and as one message of a 0.3.0 document, with
// arbitrary folders: nothing panics, the session keeps every reader's
// invariants (messages with a role and text, records with a value and
// outcomes within their bounds, turns that count prompts), and a typed
// prompt after the arbitrary message is never lost.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":"0.2.0","messages":[{"role":"user","segments":[{"type":"text","text":"hi"}]},{"role":"assistant","text":"x","tool_uses":[{"id":"a","name":"terminal","input":{"command":"ls"}}],"tool_results":[{"tool_use_id":"a","is_error":false,"content":"Command \"ls\" failed with exit code 2.","output":null}]}]}`),
		[]byte(`{"Agent":{"content":[{"Text":"ok"},{"ToolUse":{"id":"t","name":"streaming_edit_file","input":{"path":"p/a.go","mode":"edit","edits":"[{\"old_text\":\"a\",\"new_text\":\"b\"}]"}}}],"tool_results":{"t":{"tool_use_id":"t","is_error":false,"content":[{"type":"text","text":"done"}],"output":{"new_text":"b"}}}}}`),
		"/home/u/p")
	f.Add([]byte(`{"messages":["Resume",{"User":{"content":[{"Mention":{"uri":{"File":{"abs_path":"C:\\p\\x.rs"}},"content":""}}]}}],"initial_project_snapshot":{"worktree_snapshots":[{"worktree_path":"C:\\p"}]}}`),
		[]byte(`{"Agent":{"content":[{"ToolUse":{"id":"r","name":"read_file","input":{"path":"p/../../x"}}},{"ToolUse":{"id":"w","name":"write_file","input":{"path":"/abs","content":"z"}}}],"tool_results":{"w":{"tool_use_id":"w","is_error":true,"content":{"Text":"no"}},"r":{"is_error":true}}}}`),
		"")
	f.Add([]byte("{\"messages\":[[[[[\x00\xff"), []byte(`{"User":{"content":[{"Text":5}]}}`), "a\n\n/b\n")
	f.Fuzz(func(t *testing.T, doc, msg []byte, folders string) {
		row := threadRow{Folders: folders}
		check := func(doc []byte) harness.Session {
			skip := skipped{}
			s := buildSession("zed-11111111-1111-4111-8111-111111111111", row, doc, skip)
			h := &harness.History{Sessions: []harness.Session{s}, Warnings: skip.list()}
			harnesstest.CheckInvariants(t, h, 0, 0)
			harnesstest.CheckTurns(t, h, IDPrefix)
			return s
		}
		check(doc)
		if !json.Valid(msg) {
			return
		}
		s := check([]byte(`{"version":"0.3.0","messages":[` + string(msg) + `,{"User":{"content":[{"Text":"typed probe"}]}}]}`))
		if len(s.Messages) == 0 {
			t.Fatal("the prompt was lost: no messages")
		}
		if last := s.Messages[len(s.Messages)-1]; last.Role != harness.User || last.Text != "typed probe" {
			t.Fatalf("the prompt was lost: %+v", s.Messages)
		}
	})
}
