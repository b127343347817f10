package kimi

import (
	"crypto/md5"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestSniff: both products' wire logs are claimed by their metadata line
// or, in a wire.jsonl, by their record shape; kimi-cli's context files by
// their place; Claude Code's and Qwen Code's lines are not.
func TestSniff(t *testing.T) {
	const (
		meta       = `{"type": "metadata", "protocol_version": "1.3"}`
		cliEvent   = `{"timestamp": 1773128640.5, "message": {"type": "TurnBegin", "payload": {"user_input": "hi"}}}`
		codeRecord = `{"type":"config.update","cwd":"/tmp/work","time":1779256791100}`
		context    = `{"role": "_checkpoint", "id": 0}`
		claudeUser = `{"parentUuid":null,"cwd":"/home/u/app","sessionId":"11111111-2222-4333-8444-555555555555","type":"user","message":{"role":"user","content":"hi"},"uuid":"c1","timestamp":"2025-01-01T00:00:00Z"}`
		openAIish  = `{"role":"user","content":"hi"}`
	)
	for _, c := range []struct {
		path, line string
		want       bool
	}{
		{fixturePath("cli_wire.jsonl"), meta, true},
		{"/tmp/copy.jsonl", meta, true},
		{fixturePath("cli_wire.jsonl"), cliEvent, true},
		{"/tmp/copy.jsonl", cliEvent, false},
		{fixturePath("code_main.jsonl"), codeRecord, true},
		{"/tmp/copy.jsonl", codeRecord, false},
		{fixturePath("cli_context.jsonl"), context, true},
		{filepath.FromSlash(cliSession + "/context_sub_2.jsonl"), openAIish, true},
		{"/tmp/context.jsonl", openAIish, false},
		{fixturePath("cli_wire.jsonl"), claudeUser, false},
		{"/home/u/.claude/projects/-home-u-app/11111111-2222-4333-8444-555555555555.jsonl", claudeUser, false},
		{fixturePath("cli_wire.jsonl") + ".bak", meta, false},
		{fixturePath("cli_wire.jsonl"), "not json", false},
	} {
		if err := (Reader{}).Sniff(c.path, []byte(c.line+"\n")); (err == nil) != c.want {
			t.Errorf("Sniff(%s, %.50s…) = %v, want claimed %v", c.path, c.line, err, c.want)
		}
	}
}

// TestFixturesAreClaimed: every fixture is claimed where it lies.
func TestFixturesAreClaimed(t *testing.T) {
	var paths []string
	for _, f := range harnesstest.Fixtures(t, 6, "*.jsonl") {
		if err := (Reader{}).Sniff(fixturePath(filepath.Base(f)), harnesstest.ReadFixture(t, filepath.Base(f))); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		paths = append(paths, f)
	}
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"kimi-" + cliID:                        true,
		"kimi-" + cliID + "-agent-a3f9c2e17":   true,
		"kimi-" + cliID + "-agent-task-Task_3": true,
		"kimi-" + codeID:                       true,
		"kimi-" + codeID + "-agent-0":          true,
		"kimi-ses_" + cliID:                    true,
		"kimi-" + cliID + "-agent-":            false,
		"kimi-" + cliID + "-agent-a/b":         false,
		"kimi-a b":                             false,
		"kimi-":                                false,
		"kimi-.hidden":                         false,
		"qwen-" + cliID:                        false,
	} {
		if got := (Reader{}).ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestResumeCommand: a session resumes with kimi --session in its
// project; a subagent's run, or a session without a project, does not,
// and the refusal says why.
func TestResumeCommand(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"kimi-" + cliID, "/home/dev/app", "cd /home/dev/app && kimi --session " + cliID},
		{"kimi-" + codeID, "/home/dev/my app", "cd '/home/dev/my app' && kimi --session " + codeID},
		{"kimi-" + codeID + "-agent-0", "/home/dev/app", ""},
		{"kimi-" + cliID, "", ""},
		{"qwen-" + cliID, "/home/dev/app", ""},
	})
	r := Reader{}
	for _, id := range []string{"kimi-" + codeID + "-agent-0", "kimi-" + cliID} {
		if r.ResumeRefusal(id, "") == "" {
			t.Errorf("no refusal for %s", id)
		}
	}
}

// TestPlaceNamesProjectAndParents: a kimi-cli session's project is the
// work directory kimi.json lists under the md5 that names its bucket; a
// Kimi Code subagent's parent is the agent state.json names, and a fork's
// parent the session it was forked from.
func TestPlaceNamesProjectAndParents(t *testing.T) {
	home := t.TempDir()
	sum := md5.Sum([]byte("/home/dev/app"))
	bucket := filepath.Join(home, ".kimi", "sessions", hex.EncodeToString(sum[:]))
	harnesstest.WriteFile(t, filepath.Join(home, ".kimi", "kimi.json"), `{"work_dirs": [{"path": "/srv/other", "kaos": "local", "last_session_id": null}, {"path": "/home/dev/app", "kaos": "local", "last_session_id": "`+cliID+`"}]}`)
	wire := harnesstest.WriteFile(t, filepath.Join(bucket, cliID, "wire.jsonl"), string(harnesstest.ReadFixture(t, "cli_wire.jsonl")))
	h := Parse(harnesstest.ReadFixture(t, "cli_wire.jsonl"), harness.ParseOptions{Path: wire})
	for _, s := range h.Sessions {
		if s.Project != "/home/dev/app" {
			t.Errorf("%s: project %q", s.ID, s.Project)
		}
	}
	if got := h.Sessions[0].Records[0].Value; got != "example/utils.py" {
		t.Errorf("a file under the project reads %q, want it relative", got)
	}

	session := filepath.Join(home, ".kimi-code", "sessions", "wd_app_3f2a1b0c9d8e", codeID)
	harnesstest.WriteFile(t, filepath.Join(session, "state.json"), `{"createdAt":"2026-05-20T05:59:51.085Z","title":"t","forkedFrom":"session_0a1b2c3d","workDir":"/home/dev/app",
"agents":{"main":{"type":"main","parentAgentId":null},"agent-0":{"type":"sub","parentAgentId":"main"},"agent-1":{"type":"sub","parentAgentId":"agent-0"}}}`)
	for _, c := range []struct{ agent, fixture, id, parent string }{
		{"main", "code_forked.jsonl", "kimi-" + codeID, "kimi-session_0a1b2c3d"},
		{"agent-0", "code_subagent.jsonl", "kimi-" + codeID + "-agent-0", "kimi-" + codeID},
		{"agent-1", "code_subagent.jsonl", "kimi-" + codeID + "-agent-1", "kimi-" + codeID + "-agent-0"},
	} {
		path := filepath.Join(session, "agents", c.agent, "wire.jsonl")
		h := harness.ParseFile(Reader{}, harnesstest.ReadFixture(t, c.fixture), harness.ParseOptions{Path: path})
		if len(h.Sessions) != 1 || h.Sessions[0].ID != c.id || h.Sessions[0].Parent != c.parent {
			t.Errorf("%s: sessions %+v, want %s with parent %s", c.agent, h.Sessions, c.id, c.parent)
		}
	}
}
