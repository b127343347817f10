package main

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/digest"
)

// TestResumeRefusalsSayWhy: a session its agent reopens only from its own
// window, or a session whose command cannot be made, is refused with the
// reason and the agent's own way back, not only "no command".
func TestResumeRefusalsSayWhy(t *testing.T) {
	for _, c := range []struct {
		harness, id, project, want string
	}{
		{"cursor", "cursor-0b5c3f0e-1111-4222-8333-944444444444", "/srv/shop", "reopens only from Cursor's chat history"},
		{"cursor", "cursor-transcript-0b5c3f0e-1111-4222-8333-944444444444", "/srv/shop", "no command reopens an agent transcript"},
		{"cursor", "cursor-agent-0b5c3f0e-1111-4222-8333-944444444444", "", "this chat's folder is not known"},
		{"cline", "cline-1769053680585", "/srv/shop", "task history in the editor"},
		{"cline", "cline-roo-0b5c3f0e-1111-4222-8333-944444444444", "/srv/shop", "Roo Code task reopens only from the extension's task history"},
		{"pi", "openclaw-10f38658-0dc1-4fd6-b8f9-8814e1a93ec8", "/nonexistent/workspace", "no key there holds this session now"},
		{"qwen", "qwen-0b5c3f0e-1111-4222-8333-944444444444", "", "this session's folder is not known"},
		{"kimi", "kimi-session_0b5c3f0e-1111-4222-8333-944444444444-agent-0", "/srv/shop", "resume the session that ran it"},
	} {
		a := resumeOther(&digest.SessionDetail{SessionInfo: digest.SessionInfo{ID: c.id, Project: c.project, Harness: c.harness}})
		if a.Command != "" || !strings.Contains(a.Refused, c.want) || !strings.HasPrefix(a.Refused, "will not resume "+c.id+": ") {
			t.Errorf("%s: command %q, refused %q; want a refusal saying %q", c.id, a.Command, a.Refused, c.want)
		}
	}
}

// TestResumeSubagentOffersParent: a subagent's refusal offers 'deja
// resume' of the session that ran it only when that would print a
// command (Kimi's would); a Zed thread reopens only inside Zed, so its
// subagent's refusal offers to show the parent instead.
func TestResumeSubagentOffersParent(t *testing.T) {
	for _, c := range []struct{ harness, parent, want string }{
		{"kimi", "kimi-0b5c3f0e-1111-4222-8333-944444444444", "deja resume kimi-0b5c3f0e-1111-4222-8333-944444444444"},
		{"zed", "zed-11111111-1111-4111-8111-111111111111", "deja show zed-11111111-1111-4111-8111-111111111111"},
	} {
		d := &digest.SessionDetail{SessionInfo: digest.SessionInfo{ID: c.parent + "-sub", Project: "/srv/shop", Harness: c.harness}}
		d.Subagent, d.Parent = true, c.parent
		a := resumeOther(d)
		var got []string
		for _, s := range a.Instead {
			got = append(got, s.Command)
		}
		if a.Refused == "" || len(got) != 2 || got[0] != c.want {
			t.Errorf("%s: refused %q, instead %q; want %q first", c.harness, a.Refused, got, c.want)
		}
	}
}
