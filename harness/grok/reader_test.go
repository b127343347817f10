package grok

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestSniff: Grok's envelope is claimed anywhere, a bare notification only
// in an updates.jsonl; Claude Code's, Copilot CLI's and a JSON-RPC log's
// first lines are not.
func TestSniff(t *testing.T) {
	const (
		envelope = `{"timestamp":1784278801,"method":"session/update","params":{"sessionId":"019b2f3e-7c41-7d2a-9f35-6a1e0c8b4d27","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}}`
		xai      = `{"timestamp":1784278801,"method":"_x.ai/session/update","params":{"sessionId":"019b2f3e-7c41-7d2a-9f35-6a1e0c8b4d27","update":{"sessionUpdate":"turn_completed","prompt_id":"p","stop_reason":"end_turn"}}}`
		bare     = `{"sessionId":"019b2f3e-7c41-7d2a-9f35-6a1e0c8b4d27","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}`
		rpc      = `{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`
		claude   = `{"parentUuid":null,"cwd":"/home/u/app","sessionId":"11111111-2222-4333-8444-555555555555","type":"user","message":{"role":"user","content":"hi"},"uuid":"c1"}`
		copilot  = `{"type":"session.start","data":{"sessionId":"s"},"id":"e1","timestamp":"2026-01-01T00:00:00Z","parentId":null}`
	)
	session := fixturePath("basic.jsonl")
	elsewhere := "/tmp/exported.jsonl"
	for _, c := range []struct {
		path, line string
		want       bool
	}{
		{session, envelope, true},
		{elsewhere, envelope, true},
		{elsewhere, xai, true},
		{session, bare, true},
		{elsewhere, bare, false},
		{session, rpc, false},
		{session, claude, false},
		{session, copilot, false},
		{"/home/dev/.grok/sessions/x/" + sessionID + "/summary.json", envelope, false},
		{session, "not json", false},
	} {
		err := Reader{}.Sniff(c.path, []byte(c.line+"\n"))
		if (err == nil) != c.want {
			t.Errorf("Sniff(%s, %.50s…) = %v, want claimed %v", c.path, c.line, err, c.want)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"grok-" + sessionID:                  true,
		"grok-" + strings.ToUpper(sessionID): true,
		"grok-" + sessionID + "x":            false,
		"grok-not-a-uuid":                    false,
		"grok-":                              false,
		"claude-" + sessionID:                false,
	} {
		if got := (Reader{}).ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestResumeCommand: a session resumes with grok --resume, in its project
// when known; another harness's ID has no command, and the refusal says
// what Grok takes.
func TestResumeCommand(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"grok-" + sessionID, "/home/dev/app", "cd /home/dev/app && grok --resume " + sessionID},
		{"grok-" + sessionID, `C:\Users\dev\my app`, `cd 'C:\Users\dev\my app' && grok --resume ` + sessionID},
		{"grok-" + sessionID, "", "grok --resume " + sessionID},
		{"grok-not-a-uuid", "/home/dev/app", ""},
		{"claude-" + sessionID, "/home/dev/app", ""},
	})
	if why := (Reader{}).ResumeRefusal("grok-x", ""); !strings.Contains(why, "grok --resume") {
		t.Errorf("refusal %q does not say what Grok takes", why)
	}
}

// TestFixturesAreClaimed: every fixture is claimed where it lies.
func TestFixturesAreClaimed(t *testing.T) {
	for _, f := range harnesstest.Fixtures(t, 6, "*.jsonl") {
		name := f[len("testdata/"):]
		if err := (Reader{}).Sniff(fixturePath(name), harnesstest.ReadFixture(t, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
