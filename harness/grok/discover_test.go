package grok

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// layOut writes a Grok home as Grok leaves it under root: sessions of a
// Linux, a macOS and a Windows project (URL-encoded cwd folders), one in
// a slug-and-hash folder with its .cwd, each with the files beside its
// updates.jsonl; then what is no session (@vibe-kit/grok-cli's grok.db
// and settings, the search index, a subagent's meta.json, worktrees).
func layOut(t *testing.T, root string) []string {
	sessions := []string{
		filepath.Join(root, "sessions", "%2Fhome%2Fdev%2Fapp", "019b2f3e-7c41-7d2a-9f35-6a1e0c8b4d27", updatesFile),
		filepath.Join(root, "sessions", "%2Fhome%2Fdev%2Fapp", "019b2e11-0a9c-7b3e-8d21-4f6a2c9e1b05", updatesFile),
		filepath.Join(root, "sessions", "%2FUsers%2Fdev%2Fshop", "019b3001-5e6f-7a8b-9c0d-1e2f3a4b5c6d", updatesFile),
		filepath.Join(root, "sessions", "C%3A%5CUsers%5Cdev%5Cvault", "019b3002-6f70-7b8c-8d0e-2f3a4b5c6d7e", updatesFile),
		filepath.Join(root, "sessions", "deep-project-5f1c2a9b0d3e4f67", "019b3003-7a81-7c9d-8e0f-3a4b5c6d7e8f", updatesFile),
	}
	for _, s := range sessions {
		harnesstest.WriteFile(t, s, "{}\n")
		dir := filepath.Dir(s)
		for _, side := range []string{summaryFile, "chat_history.jsonl", "signals.json", "plan.json", "rewind_points.jsonl"} {
			harnesstest.WriteFile(t, filepath.Join(dir, side), "{}\n")
		}
	}
	for _, other := range []string{
		"grok.db", "user-settings.json", "config.toml", "sessions/session_search.sqlite",
		"sessions/deep-project-5f1c2a9b0d3e4f67/.cwd",
		"sessions/%2Fhome%2Fdev%2Fapp/019b2e11-0a9c-7b3e-8d21-4f6a2c9e1b05/subagents/019b2f3e-7c41-7d2a-9f35-6a1e0c8b4d27/meta.json",
		"sessions/%2Fhome%2Fdev%2Fapp/not-a-session/updates.jsonl",
		"sessions/%2Fhome%2Fdev%2Fapp/updates.jsonl",
		"worktrees/app/fork-1/updates.jsonl",
	} {
		harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(other)), "{}\n")
	}
	sort.Strings(sessions)
	return sessions
}

// TestDiscoverHome: in a scratch home, ~/.grok/sessions yields every
// session of every project, Windows and long cwd folders included, and
// nothing else of ~/.grok. Windows keeps it under %USERPROFILE%, the home
// deja is given, so the same layout stands for all three systems.
func TestDiscoverHome(t *testing.T) {
	home := t.TempDir()
	want := layOut(t, filepath.Join(home, ".grok"))
	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, want...)
	if !d.Installed || len(d.Warnings) > 0 {
		t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
	}
	for _, s := range d.Sources {
		if len(s.Reasons) != 1 || s.Reasons[0].String() != "~/.grok/sessions" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverEnv: $GROK_HOME is searched (relative to the working
// directory when relative), and so is ~/.grok, where sessions written
// before it was set stay.
func TestDiscoverEnv(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	inHome := layOut(t, filepath.Join(home, ".grok"))
	inEnv := layOut(t, filepath.Join(work, "grokhome"))
	d := Discover(harness.DiscoverOptions{Home: home, WorkDir: work, Getenv: harnesstest.Env(HomeEnv, "grokhome")})
	harnesstest.CheckSources(t, d, append(inHome, inEnv...)...)
	for _, s := range d.Sources {
		want := "~/.grok/sessions"
		if filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(s.Path)))) != filepath.Join(home, ".grok") {
			want = HomeEnv
		}
		if s.Reasons[0].String() != want {
			t.Errorf("%s found for %v, want %s", s.Path, s.Reasons, want)
		}
	}
}

// TestDiscoverDirs: grok.dirs replaces the default places, and takes a
// Grok home or its sessions folder.
func TestDiscoverDirs(t *testing.T) {
	home, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	layOut(t, filepath.Join(home, ".grok"))
	inA := layOut(t, a)
	inB := layOut(t, b)
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: []string{a, filepath.Join(b, "sessions")}, Getenv: harnesstest.Env(HomeEnv, home)})
	harnesstest.CheckSources(t, d, append(inA, inB...)...)
	for _, s := range d.Sources {
		if s.Reasons[0].String() != "grok.dirs" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverNothing: a home where Grok Build never ran has nothing and
// says it is not installed, even when @vibe-kit/grok-cli left ~/.grok;
// one where Grok ran but kept no session is installed.
func TestDiscoverNothing(t *testing.T) {
	home := t.TempDir()
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: home}))
	harnesstest.WriteFile(t, filepath.Join(home, ".grok", "grok.db"), "")
	harnesstest.WriteFile(t, filepath.Join(home, ".grok", "user-settings.json"), "{}")
	if d := Discover(harness.DiscoverOptions{Home: home}); d.Installed || len(d.Sources) > 0 {
		t.Errorf("home with grok-cli's ~/.grok: %+v", d)
	}
	harnesstest.WriteFile(t, filepath.Join(home, ".grok", "sessions", "session_search.sqlite"), "")
	if d := Discover(harness.DiscoverOptions{Home: home}); !d.Installed || len(d.Sources) > 0 {
		t.Errorf("home with ~/.grok/sessions: %+v", d)
	}
}
