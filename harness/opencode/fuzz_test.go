package opencode

import (
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// FuzzParse feeds arbitrary message and part data, as a store's rows hold
// them, through the decoders and the session builder: nothing panics,
// turns count user messages, and a user's plain text part is never lost.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"role":"user","time":{"created":1}}`), []byte(`{"type":"text","text":"hello"}`))
	f.Add([]byte(`{"role":"assistant","path":{"cwd":"/p"}}`), []byte(`{"type":"tool","tool":"edit","state":{"status":"completed","input":{"filePath":"/p/a.go"}}}`))
	f.Add([]byte(`{"role":"assistant"}`), []byte(`{"type":"tool","tool":"patch","state":{"status":"completed","input":{"patchText":"*** Add File: x\n"}}}`))
	f.Add([]byte(`{"role":"user","summary":{"diffs":[{"after":"\"\\u00e9"}]}}`), []byte(`{"type":"text","text":"\ud83d\ude00 \\ \"","synthetic":false}`))
	f.Fuzz(func(t *testing.T, msgData, partData []byte) {
		var sc jsonscan.Scanner
		var m messageInfo
		m.ID, m.Session = "msg_1", "ses_1"
		if !decodeMessage(&sc, msgData, &m) {
			m.Role = "user"
		}
		var p partInfo
		decodePart(&sc, partData, &p)
		m.Parts = []partInfo{p, {Type: "text", Text: "probe text"}}
		user := messageInfo{ID: "msg_2", Session: "ses_1", Role: "user", Parts: []partInfo{{Type: "text", Text: "typed probe"}}}
		s := buildSession(sessionInfo{ID: "ses_1", Directory: "/p"}, []messageInfo{m, user})
		h := &harness.History{Sessions: []harness.Session{s}}
		harnesstest.CheckInvariants(t, h, 0, 0)
		harnesstest.CheckTurns(t, h, IDPrefix)
		if !slices.ContainsFunc(s.Messages, func(m harness.Message) bool { return m.Role == harness.User && m.Text == "typed probe" }) {
			t.Fatal("a user's text part was lost")
		}
	})
}
