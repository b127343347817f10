package goose

import (
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// FuzzParse feeds arbitrary bytes through both of Goose's forms: as a
// store row's content_json and metadata_json, and as a legacy session
// file. Nothing panics, the invariants every reader keeps hold, turns
// count user messages, and a user's plain prompt after them is never
// lost.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`[{"type":"text","text":"hello"}]`), []byte(`{"userVisible":true}`), []byte(`{"description":"d","message_count":0}`+"\n"))
	f.Add([]byte(`[{"type":"toolRequest","id":"a","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}},{"type":"toolResponse","id":"a","toolResult":{"status":"success","value":{"content":[{"type":"text","text":"x\n\nCommand exited with code 2"}],"isError":true}}}]`),
		[]byte(`{"userVisible":false}`), []byte(`{"role":"user","created":1,"content":[{"type":"text","text":"\ud83d\ude00"}]}`))
	f.Add([]byte(`[{"type":"toolRequest","id":"b","toolCall":{"status":"success","value":{"name":"developer__text_editor","arguments":{"command":"write","path":"/p/a","file_text":"\"\\u00e9"}}}}]`),
		[]byte(`null`), []byte("{\"working_dir\":\"/p\",\"description\":\"d\",\"message_count\":1}\n{\"role\":\"assistant\",\"created\":9,\"content\":[{\"type\":\"toolResponse\",\"id\":\"b\",\"toolResult\":{\"status\":\"error\",\"error\":\"e\"}}]}"))
	f.Add([]byte(`[{"type":"toolRequest","id":"c","toolCall":{"status":"success","value":{"name":"developer__file_edit","arguments":{"path":"a","before":"x","after":"y"}}}},{"type":"toolResponse","id":"c","toolResult":{"status":"success","value":[{"type":"text","text":"ok"}]}}]`),
		[]byte(`{"userVisible":true,"agentVisible":false}`), []byte("[[[[\n{}\n"))
	harnesstest.SeedEach(f, 4, func(_ string, data []byte) []any { return []any{[]byte(`[]`), []byte(`{}`), data} }, "*.txtar")
	f.Fuzz(func(t *testing.T, content, metadata, legacy []byte) {
		var sc jsonscan.Scanner
		for _, role := range []string{"user", "assistant"} {
			m := message{Role: role, Created: 1767607200}
			decodeContent(&sc, content, &m)
			decodeMetadata(&sc, metadata, &m)
			probe := message{Role: "user", Texts: []string{"typed probe"}}
			s := buildSession(sessionInfo{ID: "20260105_1", Dir: "/p"}, []message{m, probe}, []int{1, 2})
			check(t, s)
		}
		s, _ := parseLegacy(sessionInfo{ID: "fuzz"}, append(legacy, "\n"+`{"role":"user","created":1,"content":[{"type":"text","text":"typed probe"}]}`+"\n"...))
		check(t, s)
	})
}

func check(t *testing.T, s harness.Session) {
	t.Helper()
	h := &harness.History{Sessions: []harness.Session{s}}
	harnesstest.CheckInvariants(t, h, 0, 0)
	harnesstest.CheckTurns(t, h, IDPrefix)
	if !slices.ContainsFunc(s.Messages, func(m harness.Message) bool { return m.Role == harness.User && m.Text == "typed probe" }) {
		t.Fatal("a user's prompt was lost")
	}
}
