package grok

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// parentID is the session the fixtures' session came from.
const parentID = "019b2e11-0a9c-7b3e-8d21-4f6a2c9e1b05"

// parseAt lays the basic fixture out as its session's updates.jsonl in
// group, with summary beside it when it is not empty, and parses it there.
func parseAt(t *testing.T, group, summary string) harness.Session {
	t.Helper()
	dir := filepath.Join(group, sessionID)
	path := harnesstest.WriteFile(t, filepath.Join(dir, updatesFile), string(harnesstest.ReadFixture(t, "basic.jsonl")))
	if summary != "" {
		harnesstest.WriteFile(t, filepath.Join(dir, summaryFile), summary)
	}
	h := harness.ParseFile(Reader{}, harnesstest.ReadFixture(t, "basic.jsonl"), harness.ParseOptions{Path: path})
	if len(h.Sessions) != 1 {
		t.Fatalf("%d sessions, warnings %q, refused %q", len(h.Sessions), h.Warnings, h.Refused)
	}
	return h.Sessions[0]
}

// TestSummary: summary.json names the project (its info.cwd wins over the
// folder's name, which Grok keeps when a session moves), the start, and
// the session a fork came from; the ID is the session folder's.
func TestSummary(t *testing.T) {
	group := filepath.Join(t.TempDir(), "sessions", "%2Fhome%2Fdev%2Fold")
	s := parseAt(t, group, `{
  "info": {"id": "`+sessionID+`", "cwd": "/home/dev/app"},
  "session_summary": "Login test timeout",
  "generated_title": "Fix the login test on CI",
  "created_at": "2026-07-17T08:59:30.123456Z",
  "updated_at": "2026-07-17T09:10:00Z",
  "num_messages": 40,
  "current_model_id": "grok-code-fast-1",
  "session_kind": "fork",
  "parent_session_id": "`+parentID+`"
}`)
	if s.ID != "grok-"+sessionID || s.Project != "/home/dev/app" || s.Parent != "grok-"+parentID || s.Subagent {
		t.Errorf("id %s project %q parent %q subagent %v", s.ID, s.Project, s.Parent, s.Subagent)
	}
	if got := s.Started.Format("2006-01-02T15:04:05.000000Z"); got != "2026-07-17T08:59:30.123456Z" {
		t.Errorf("started %s, want summary.json's created_at", got)
	}
}

// TestSubagentParent: a subagent's summary names no parent; the session
// beside it whose subagents/ folder holds the subagent's id ran it.
func TestSubagentParent(t *testing.T) {
	group := filepath.Join(t.TempDir(), "sessions", "%2Fhome%2Fdev%2Fapp")
	harnesstest.WriteFile(t, filepath.Join(group, parentID, "subagents", sessionID, "meta.json"), `{"parent_session_id":"`+parentID+`","child_session_id":"`+sessionID+`","status":"completed"}`)
	harnesstest.WriteFile(t, filepath.Join(group, "019b2f41-0000-7000-8000-000000000000", summaryFile), "{}")
	s := parseAt(t, group, `{"info":{"id":"`+sessionID+`","cwd":"/home/dev/app"},"created_at":"2026-07-17T09:00:00Z","session_kind":"subagent"}`)
	if s.ID != "grok-"+sessionID || !s.Subagent || s.Parent != "grok-"+parentID {
		t.Errorf("id %s subagent %v parent %q", s.ID, s.Subagent, s.Parent)
	}
	// A subagent whose parent is not beside it keeps no link.
	lone := filepath.Join(t.TempDir(), "sessions", "%2Ftmp%2Fwt")
	s = parseAt(t, lone, `{"info":{"id":"`+sessionID+`","cwd":"/tmp/wt"},"session_kind":"subagent_fork"}`)
	if !s.Subagent || s.Parent != "" {
		t.Errorf("lone subagent: subagent %v parent %q", s.Subagent, s.Parent)
	}
}

// TestLongCwd: a cwd folder named by a slug and a hash (a cwd over 255
// bytes encoded) holds the path in .cwd; a damaged summary.json is no
// summary.
func TestLongCwd(t *testing.T) {
	group := filepath.Join(t.TempDir(), "sessions", "deep-project-5f1c2a9b0d3e4f67")
	harnesstest.WriteFile(t, filepath.Join(group, cwdFile), "/home/dev/very/long/path/to/deep-project\n")
	s := parseAt(t, group, `{"info": {"cwd": `)
	if s.Project != "/home/dev/very/long/path/to/deep-project" {
		t.Errorf("project %q, want the .cwd file's", s.Project)
	}
	if s.Started.Format("15:04:05.00") != "09:00:01.25" {
		t.Errorf("started %v, want the first line's time", s.Started)
	}
}

// TestCopyElsewhere: an updates.jsonl copied out of its place (deja parse
// on it) is named by its lines' sessionId and has no project.
func TestCopyElsewhere(t *testing.T) {
	data := harnesstest.ReadFixture(t, "basic.jsonl")
	h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: "/tmp/grok-session.jsonl"})
	if len(h.Sessions) != 1 || h.Sessions[0].ID != "grok-"+sessionID || h.Sessions[0].Project != "" {
		t.Fatalf("sessions %+v", h.Sessions)
	}
	// Its file records keep the paths as the calls gave them.
	if r := h.Sessions[0].Records[1]; r.Value != "/home/dev/app/tests/login_test.py" {
		t.Errorf("edit record %q", r.Value)
	}
}
