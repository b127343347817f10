package qwen

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestSniff: a Qwen Code record is claimed by its keys and its place or
// its Gemini-shaped content; Claude Code's and Gemini CLI's lines are not.
func TestSniff(t *testing.T) {
	const (
		qwenUser   = `{"uuid":"u1","parentUuid":null,"sessionId":"3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d","timestamp":"2026-03-02T09:00:05.000Z","type":"user","cwd":"/home/dev/app","version":"0.14.2","message":{"role":"user","parts":[{"text":"hi"}]}}`
		qwenSystem = `{"uuid":"u0","parentUuid":null,"sessionId":"3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d","timestamp":"2026-03-02T09:00:00.000Z","type":"system","subtype":"slash_command","cwd":"/root","version":"0.14.1","systemPayload":{"phase":"invocation","rawCommand":"/auth"}}`
		claudeUser = `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"11111111-2222-4333-8444-555555555555","version":"1.0.0","type":"user","message":{"role":"user","content":"hi"},"uuid":"c1","timestamp":"2025-01-01T00:00:00Z"}`
		geminiHead = `{"sessionId":"11111111-2222-4333-8444-555555555555","projectHash":"ab12","startTime":"2026-01-01T00:00:00Z","kind":"main"}`
	)
	chat := fixtureProject + "/chats/3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d.jsonl"
	elsewhere := "/tmp/exported.jsonl"
	for _, c := range []struct {
		path, line string
		want       bool
	}{
		{chat, qwenUser, true},
		{elsewhere, qwenUser, true},
		{elsewhere, qwenSystem, true},
		{fixturePath("subagent_explore.jsonl"), `{"uuid":"s1","sessionId":"x","type":"assistant","isSidechain":true,"agentId":"explore-7f3c"}`, true},
		{elsewhere, claudeUser, false},
		{"/home/u/.claude/projects/-home-u-app/11111111-2222-4333-8444-555555555555.jsonl", claudeUser, false},
		{elsewhere, geminiHead, false},
		{fixtureProject + "/chats/notes.json", qwenUser, false},
		{chat, "not json", false},
	} {
		err := Reader{}.Sniff(c.path, []byte(c.line+"\n"))
		if (err == nil) != c.want {
			t.Errorf("Sniff(%s, %.50s…) = %v, want claimed %v", c.path, c.line, err, c.want)
		}
	}
	// A first line longer than the head is judged by the keys before the cut.
	long := strings.Replace(qwenUser, `"text":"hi"`, `"text":"`+strings.Repeat("long ", 4000)+`"`, 1)
	if err := (Reader{}).Sniff(chat, []byte(long[:8192])); err != nil {
		t.Errorf("a long first line is not claimed: %v", err)
	}
}

func TestValidID(t *testing.T) {
	const sid = "3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d"
	for id, want := range map[string]bool{
		"qwen-" + sid:                         true,
		"qwen-" + sid + "-agent-explore-7f3c": true,
		"qwen-" + sid + "-agent-":             false,
		"qwen-" + sid + "-agent-a/b":          false,
		"qwen-" + sid + "x":                   false,
		"qwen-not-a-uuid":                     false,
		"claude-" + sid:                       false,
	} {
		if got := (Reader{}).ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestResumeCommand: a session resumes with qwen --resume in its project;
// a subagent's transcript, or a session without a project, does not.
func TestResumeCommand(t *testing.T) {
	const sid = "3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d"
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"qwen-" + sid, "/home/dev/app", "cd /home/dev/app && qwen --resume " + sid},
		{"qwen-" + sid, "/home/dev/my app", "cd '/home/dev/my app' && qwen --resume " + sid},
		{"qwen-" + sid + "-agent-explore-7f3c", "/home/dev/app", ""},
		{"qwen-" + sid, "", ""},
		{"gemini-" + sid, "/home/dev/app", ""},
	})
}

// TestFixturesAreClaimed: every fixture is claimed where it lies.
func TestFixturesAreClaimed(t *testing.T) {
	for _, name := range []string{"basic.jsonl", "windows.jsonl", "subagent_explore.jsonl", "forked.jsonl", "sidechain.jsonl"} {
		if err := (Reader{}).Sniff(fixturePath(name), harnesstest.ReadFixture(t, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestLongAgentIDKeepsItsTurns: a sidechain record whose agentId is longer
// than an ID's part may be is still read, under the id's first 64 bytes,
// rather than refused with its prompts.
func TestLongAgentIDKeepsItsTurns(t *testing.T) {
	agent := strings.Repeat("x/", 50)
	line := `{"uuid":"u1","sessionId":"3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d","type":"user","isSidechain":true,"agentId":"` + agent + `","message":{"role":"user","parts":[{"text":"look for the config"}]}}` + "\n"
	h := parseFixture("3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d.jsonl", []byte(line))
	if len(h.Refused) > 0 || len(h.Sessions) != 1 || len(h.Sessions[0].Messages) != 1 {
		t.Fatalf("refused %q, sessions %+v", h.Refused, h.Sessions)
	}
	if want := "qwen-3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d-agent-" + strings.Repeat("x_", 32); h.Sessions[0].ID != want {
		t.Errorf("ID %q, want %q", h.Sessions[0].ID, want)
	}
}
