package factory

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// layOut writes a ~/.factory folder as droid leaves it under root: sessions
// of a Linux, a macOS and a Windows project with their settings sidecars,
// one in the flat layout of older builds, and the files that are no
// sessions (credentials, settings, custom droids).
func layOut(t *testing.T, root string) []string {
	sessions := []string{
		filepath.Join(root, "sessions", "-home-dev-app", "7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"),
		filepath.Join(root, "sessions", "-Users-dev-shop", "0b3f6a52-8c1d-4f7e-9a2b-5d6e7f8a9b0c.jsonl"),
		filepath.Join(root, "sessions", "-C-Users-dev-Documents-vault", "1e497a18-d302-4d2c-b2b1-98903bfebd5b.jsonl"),
		filepath.Join(root, "sessions", "5f0c2b1e-3a4d-4b6c-8d9e-0f1a2b3c4d5e.jsonl"),
	}
	for _, s := range sessions {
		harnesstest.WriteFile(t, s, "{}\n")
		harnesstest.WriteFile(t, s[:len(s)-len(".jsonl")]+".settings.json", "{}\n")
	}
	for _, other := range []string{
		"auth.v2.file", "auth.v2.key", "settings.json", "droids/reviewer.md",
		"sessions/-home-dev-app/notes.jsonl", "sessions/-home-dev-app/deep/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl",
	} {
		harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(other)), "{}\n")
	}
	sort.Strings(sessions)
	return sessions
}

// TestDiscoverHome: in a scratch home, ~/.factory/sessions yields every
// session file of every project, Windows slugs included, and nothing
// else of ~/.factory. Windows keeps it under %USERPROFILE%, the home
// deja is given, so the same layout stands for all three systems.
func TestDiscoverHome(t *testing.T) {
	home := t.TempDir()
	want := layOut(t, filepath.Join(home, ".factory"))
	d := Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("FACTORY_HOME", t.TempDir())})
	harnesstest.CheckSources(t, d, want...)
	if !d.Installed || len(d.Warnings) > 0 {
		t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
	}
	for _, s := range d.Sources {
		if len(s.Reasons) != 1 || s.Reasons[0].String() != "~/.factory/sessions" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverDirs: factory.dirs replaces the default place, and takes a
// .factory folder or its sessions folder.
func TestDiscoverDirs(t *testing.T) {
	home, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	layOut(t, filepath.Join(home, ".factory"))
	inA := layOut(t, a)
	inB := layOut(t, b)
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: []string{a, filepath.Join(b, "sessions")}})
	harnesstest.CheckSources(t, d, append(inA, inB...)...)
	for _, s := range d.Sources {
		if s.Reasons[0].String() != "factory.dirs" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverNothing: a home where droid never ran has nothing and says
// it is not installed; one where it ran but kept no session is installed.
func TestDiscoverNothing(t *testing.T) {
	home := t.TempDir()
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: home}))
	harnesstest.WriteFile(t, filepath.Join(home, ".factory", "settings.json"), "{}")
	if d := Discover(harness.DiscoverOptions{Home: home}); !d.Installed || len(d.Sources) > 0 {
		t.Errorf("home with ~/.factory: %+v", d)
	}
}
