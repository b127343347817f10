package continuedev

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const sessionDoc = `{"sessionId":"s","title":"t","workspaceDirectory":"","history":[]}`

// session writes a session file and the files Continue keeps beside and
// above it, and returns the session file's path.
func session(t *testing.T, global, id string) string {
	t.Helper()
	harnesstest.WriteFile(t, filepath.Join(global, "sessions", indexFile), `[]`)
	harnesstest.WriteFile(t, filepath.Join(global, "config.yaml"), "models: []\n")
	harnesstest.WriteFile(t, filepath.Join(global, "config.json"), `{"models":[]}`)
	harnesstest.WriteFile(t, filepath.Join(global, "index", "globalContext.json"), `{}`)
	return harnesstest.WriteFile(t, filepath.Join(global, "sessions", id+".json"), sessionDoc)
}

// TestDiscover: the session files in ~/.continue/sessions, not the index
// beside them nor anything else in ~/.continue.
func TestDiscover(t *testing.T) {
	home := t.TempDir()
	global := filepath.Join(home, ".continue")
	a := session(t, global, sid)
	b := session(t, global, "agent-7f3k")
	harnesstest.WriteFile(t, filepath.Join(global, "sessions", "notes.txt"), "x")
	harnesstest.WriteFile(t, filepath.Join(global, "sessions", "old", "x.json"), sessionDoc)

	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, a, b)
	if !d.Installed || len(d.Warnings) != 0 {
		t.Errorf("installed %v, warnings %v", d.Installed, d.Warnings)
	}
	for _, s := range d.Sources {
		if len(s.Reasons) != 1 || s.Reasons[0].String() != "~/.continue/sessions" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverEnv: CONTINUE_GLOBAL_DIR, relative to the current folder
// when relative, is searched with ~/.continue, where sessions written
// before it was set stay.
func TestDiscoverEnv(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env := map[string]string{}
	opts := harness.DiscoverOptions{Home: home, WorkDir: work, Getenv: func(k string) string { return env[k] }}
	old := session(t, filepath.Join(home, ".continue"), "old-1")

	env[GlobalDirEnv] = "cn-home"
	moved := session(t, filepath.Join(work, "cn-home"), "new-1")
	d := Discover(opts)
	harnesstest.CheckSources(t, d, moved, old)

	abs := filepath.Join(t.TempDir(), "elsewhere")
	env[GlobalDirEnv] = abs
	there := session(t, abs, "new-2")
	harnesstest.CheckSources(t, Discover(opts), there, old)

	// The variable alone, with no ~/.continue: installed all the same.
	d = Discover(harness.DiscoverOptions{Home: t.TempDir(), Getenv: harnesstest.Env(GlobalDirEnv, abs)})
	harnesstest.CheckSources(t, d, there)
	if !d.Installed {
		t.Error("not installed with the sessions in $" + GlobalDirEnv)
	}
}

// TestDiscoverDirs: continue.dirs replaces every default place; an entry
// may be a global folder or a sessions folder.
func TestDiscoverDirs(t *testing.T) {
	home := t.TempDir()
	session(t, filepath.Join(home, ".continue"), "default-1")
	global := filepath.Join(t.TempDir(), "continue")
	a := session(t, global, "a-1")
	sessions := filepath.Join(t.TempDir(), "copied-sessions")
	b := harnesstest.WriteFile(t, filepath.Join(sessions, "b-1.json"), sessionDoc)
	harnesstest.WriteFile(t, filepath.Join(sessions, indexFile), `[]`)

	d := Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env(GlobalDirEnv, "/nonexistent"), Dirs: []string{global, sessions, filepath.Join(home, "missing")}})
	harnesstest.CheckSources(t, d, a, b)
	if !d.Installed || len(d.Warnings) != 0 {
		t.Errorf("installed %v, warnings %v", d.Installed, d.Warnings)
	}
	for _, s := range d.Sources {
		if s.Reasons[0].Name != "continue.dirs" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverInstalledWithoutSessions: ~/.continue with no sessions
// folder yet (Continue installed, no chat saved) is installed, and no
// place warns.
func TestDiscoverInstalledWithoutSessions(t *testing.T) {
	home := t.TempDir()
	harnesstest.WriteFile(t, filepath.Join(home, ".continue", "config.yaml"), "models: []\n")
	d := Discover(harness.DiscoverOptions{Home: home})
	if !d.Installed || len(d.Sources) != 0 || len(d.Warnings) != 0 {
		t.Errorf("installed %v, sources %v, warnings %v", d.Installed, d.Sources, d.Warnings)
	}
}

func TestDiscoverNoAgent(t *testing.T) {
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: t.TempDir()}))
}
