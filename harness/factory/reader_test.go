package factory

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestSniff: droid's session_start line is claimed anywhere, a message
// line only under .factory/sessions; pi's and Claude Code's first lines
// are not.
func TestSniff(t *testing.T) {
	const (
		start      = `{"type":"session_start","id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","title":"New Session","sessionTitle":"New Session","owner":"dev","version":2,"cwd":"/home/dev/app"}`
		msg        = `{"type":"message","id":"m1","timestamp":"2026-03-02T09:15:01.120Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`
		piHeader   = `{"type":"session","version":3,"id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","timestamp":"2026-01-01T00:00:00Z","cwd":"/home/dev/app"}`
		claudeUser = `{"parentUuid":null,"cwd":"/home/u/app","sessionId":"11111111-2222-4333-8444-555555555555","type":"user","message":{"role":"user","content":"hi"},"uuid":"c1"}`
	)
	session := fixtureDir + "7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"
	elsewhere := "/tmp/exported.jsonl"
	for _, c := range []struct {
		path, line string
		want       bool
	}{
		{session, start, true},
		{elsewhere, start, true},
		{session, msg, true},
		{"/home/dev/.factory/sessions/7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl", msg, true},
		{elsewhere, msg, false},
		{elsewhere, piHeader, false},
		{session, piHeader, false},
		{session, claudeUser, false},
		{fixtureDir + "7c9e6679-7425-40de-944b-e07fc1f90ae7.settings.json", start, false},
		{session, "not json", false},
	} {
		err := Reader{}.Sniff(c.path, []byte(c.line+"\n"))
		if (err == nil) != c.want {
			t.Errorf("Sniff(%s, %.50s…) = %v, want claimed %v", c.path, c.line, err, c.want)
		}
	}
	long := strings.Replace(start, `"title":"New Session"`, `"title":"`+strings.Repeat("long ", 4000)+`"`, 1)
	if err := (Reader{}).Sniff(elsewhere, []byte(long[:8192])); err == nil {
		t.Errorf("a header cut before its cwd is claimed")
	}
}

func TestValidID(t *testing.T) {
	const sid = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	for id, want := range map[string]bool{
		"factory-" + sid:       true,
		"factory-" + sid + "x": false,
		"factory-not-a-uuid":   false,
		"claude-" + sid:        false,
	} {
		if got := (Reader{}).ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestResumeCommand: a session resumes with droid --resume, in its
// project when known; another harness's ID has no command, and the
// refusal says what droid takes.
func TestResumeCommand(t *testing.T) {
	const sid = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"factory-" + sid, "/home/dev/app", "cd /home/dev/app && droid --resume " + sid},
		{"factory-" + sid, `C:\Users\dev\my vault`, `cd 'C:\Users\dev\my vault' && droid --resume ` + sid},
		{"factory-" + sid, "", "droid --resume " + sid},
		{"claude-" + sid, "/home/dev/app", ""},
	})
	if why := (Reader{}).ResumeRefusal("factory-x", ""); !strings.Contains(why, "droid --resume") {
		t.Errorf("refusal %q does not say what droid takes", why)
	}
}

// TestFixturesAreClaimed: every fixture is claimed where it lies.
func TestFixturesAreClaimed(t *testing.T) {
	for _, f := range harnesstest.Fixtures(t, 5, "*.jsonl") {
		name := f[len("testdata/"):]
		if err := (Reader{}).Sniff(fixtureDir+name, harnesstest.ReadFixture(t, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
