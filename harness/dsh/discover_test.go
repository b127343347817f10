package dsh

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// layOut writes a dsh home as dsh leaves it under home: sessions of two
// projects and one without a cwd, a session migrated from v0 to v2 (its
// old generation kept beside), a plain-text root's log, and the files
// that are no logs (the lock, settings, plugins, a temporary publish).
// It returns the logs discovery must find.
func layOut(t *testing.T, home string, slug string) []string {
	root := filepath.Join(home, "sessions")
	logs := []string{
		filepath.Join(root, slug, "session-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f", "session.jsonl.zstd"),
		filepath.Join(root, slug, "session-1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d", "session.v2.jsonl.zstd"),
		filepath.Join(root, "--srv-api--", "session-9a8b7c6d-5e4f-4321-8fed-cba987654321", "session.v10.jsonl"),
		filepath.Join(root, "_no-cwd", "session-0c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e", "session.jsonl.zstd"),
	}
	for _, l := range logs {
		harnesstest.WriteFile(t, l, "x")
	}
	for _, other := range []string{
		slug + "/session-1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d/session.jsonl.zstd",
		slug + "/session-1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d/session.v1.jsonl.zstd",
		slug + "/session-1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d/session.lock",
		"--srv-api--/session-9a8b7c6d-5e4f-4321-8fed-cba987654321/session.v9.jsonl",
		"--srv-api--/session-9a8b7c6d-5e4f-4321-8fed-cba987654321/.session.v11.jsonl.tmp",
		slug + "/notes.jsonl",
		"stray.jsonl",
	} {
		harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(other)), "x")
	}
	harnesstest.WriteFile(t, filepath.Join(home, "cordis.patch.yml"), "x")
	harnesstest.WriteFile(t, filepath.Join(home, "credentials.json"), "x")
	return logs
}

// TestDiscoverLayouts: ~/.dsh/sessions is the place on Linux, macOS and
// Windows alike; each finds the highest generation of every session and
// nothing else. The project slugs are dsh's for each system's paths
// (projectKey: separators and a drive's colon become '-').
func TestDiscoverLayouts(t *testing.T) {
	for system, slug := range map[string]string{
		"linux":   "--home-dev-app--",
		"darwin":  "--Users-dev-app--",
		"windows": "--C-Users-dev-app--",
	} {
		t.Run(system, func(t *testing.T) {
			home := t.TempDir()
			want := layOut(t, filepath.Join(home, ".dsh"), slug)
			d := Discover(harness.DiscoverOptions{Home: home})
			harnesstest.CheckSources(t, d, want...)
			if !d.Installed || len(d.Warnings) > 0 {
				t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
			}
			for _, s := range d.Sources {
				if len(s.Reasons) != 1 || s.Reasons[0].String() != "~/.dsh/sessions" {
					t.Errorf("%s found for %v", s.Path, s.Reasons)
				}
			}
		})
	}
}

// TestDiscoverHomeEnv: DSH_HOME moves the logs, relative to the working
// directory when relative; those written to ~/.dsh before it was set are
// still found, each for its own place.
func TestDiscoverHomeEnv(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	old := layOut(t, filepath.Join(home, ".dsh"), "--home-dev-app--")
	moved := harnesstest.WriteFile(t, filepath.Join(work, "dsh-home", "sessions", "--srv-x--", "session-d4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a", "session.jsonl.zstd"), "x")
	d := Discover(harness.DiscoverOptions{Home: home, WorkDir: work, Getenv: harnesstest.Env(HomeEnv, "dsh-home")})
	harnesstest.CheckSources(t, d, append(old, moved)...)
	for _, s := range d.Sources {
		want := "~/.dsh/sessions"
		if filepath.Base(filepath.Dir(s.Path)) == "session-d4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a" {
			want = HomeEnv
		}
		if got := s.Reasons[0].String(); got != want {
			t.Errorf("%s found for %s, want %s", s.Path, got, want)
		}
	}
}

// TestDiscoverDirs: dsh.dirs replaces the default places, and takes a
// dsh home or its sessions folder.
func TestDiscoverDirs(t *testing.T) {
	home, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	layOut(t, filepath.Join(home, ".dsh"), "--home-dev-app--")
	want := append(layOut(t, a, "--a--"), layOut(t, b, "--b--")...)
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: []string{a, filepath.Join(b, "sessions")}})
	harnesstest.CheckSources(t, d, want...)
	for _, s := range d.Sources {
		if s.Reasons[0].String() != "dsh.dirs" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverNothing: without a ~/.dsh, dsh is not installed and nothing
// is found; a ~/.dsh without sessions is installed with nothing found.
func TestDiscoverNothing(t *testing.T) {
	home := t.TempDir()
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: home}))
	harnesstest.WriteFile(t, filepath.Join(home, ".dsh", "cordis.patch.yml"), "x")
	d := Discover(harness.DiscoverOptions{Home: home})
	if !d.Installed || len(d.Sources) > 0 {
		t.Errorf("installed %v, sources %v", d.Installed, d.Sources)
	}
	if !slices.ContainsFunc(d.Places, func(p harness.Place) bool { return p.Why == "~/.dsh/sessions" && !p.Exists }) {
		t.Errorf("places %+v", d.Places)
	}
}
