package antigravity

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse feeds arbitrary bytes as a transcript and as a notice file:
// nothing panics, the invariants every reader keeps hold, turns count
// prompts, and a prompt typed after the bytes is never lost.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"source":"USER_EXPLICIT","created_at":"2026-07-17T09:00:00Z","content":"<USER_REQUEST>a<ADDITIONAL_METADATA>{\"cwd\":\"/p\"}</ADDITIONAL_METADATA></USER_REQUEST>"}`+"\n"), []byte(noticeJSON))
	f.Add([]byte("<ADDITIONAL_METADATA></USER_SETTINGS_CHANGE><USER_SETTINGS_CHANGE>\n{\"source\":\"MODEL\",\"content\":\"x\"}"), []byte(`{"content":"\ud800","timestamp":"x"}`))
	f.Add([]byte(`{"source":"USER_EXPLICIT","content":"<ADDITIONAL_METADATA>x</ADDITIONAL_METADATA><ADDITIONAL_METADATA>"}`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, transcript, noticeData []byte) {
		var w harness.Warnings
		probe := []byte("\n" + `{"source":"USER_EXPLICIT","content":"<USER_REQUEST>typed probe</USER_REQUEST>"}` + "\n")
		said, _ := parseTranscript(append(transcript, probe...), &w)
		_, _ = request(string(transcript))
		var notices []harness.Message
		if m, ok := parseNotice(noticeData); ok {
			notices = append(notices, m)
		}
		s := harness.Session{ID: IDPrefix + "feee38e8-7e95-499f-bc12-62ca950ad77a", Messages: merge(said, notices)}
		harnesstest.CheckInvariants(t, &harness.History{Sessions: []harness.Session{s}}, 0, 0)
		prompts := 0
		for _, m := range s.Messages {
			if m.Role == harness.User {
				prompts++
				if m.Turn != prompts-1 {
					t.Fatalf("prompt %q has turn %d, want %d", m.Text, m.Turn, prompts-1)
				}
			}
		}
		if prompts == 0 || s.Messages[len(s.Messages)-1-countAfter(s.Messages)].Text != "typed probe" {
			t.Fatalf("the typed probe was lost: %+v", s.Messages)
		}
	})
}

// countAfter counts the messages after the last prompt.
func countAfter(ms []harness.Message) int {
	n := 0
	for i := len(ms) - 1; i >= 0 && ms[i].Role != harness.User; i-- {
		n++
	}
	return n
}
