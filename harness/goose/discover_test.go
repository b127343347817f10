package goose

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// touch writes a file at p under root, and its directories.
func touch(t *testing.T, root, p, body string) string {
	return harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), body)
}

// found lists the sources relative to root, each with its first reason.
func found(d harness.Discovery, root string) string {
	var out []string
	for _, s := range d.Sources {
		rel, _ := filepath.Rel(root, s.Path)
		out = append(out, filepath.ToSlash(rel)+" ("+s.Reasons[0].String()+")")
	}
	return strings.Join(out, "\n")
}

// TestDiscoverHome lays Goose's data directories out in a scratch home,
// in the default places of Linux and macOS (XDG, ~/.local/share/goose)
// and Windows (%APPDATA%\Block\goose\data): the store where there is one,
// and the legacy files only where there is none (the store reads those
// it does not hold), nothing else of the folders.
func TestDiscoverHome(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{
		".local/share/goose/sessions/sessions.db",
		".local/share/goose/sessions/sessions.db-wal",
		".local/share/goose/sessions/20250310_151010.jsonl",
		".local/share/goose/projects.json",
		".local/share/goose/sessions/backups/pre_migration_v4_to_v5_20251202_165855.db",
		"AppData/Roaming/Block/goose/data/sessions/20250401_101010.jsonl",
		"AppData/Roaming/Block/goose/data/sessions/named.jsonl",
		"AppData/Roaming/Block/goose/data/sessions/notes.txt",
		".config/goose/config.yaml",
	} {
		touch(t, home, p, "")
	}
	d := Discover(harness.DiscoverOptions{Home: home})
	want := strings.Join([]string{
		".local/share/goose/sessions/sessions.db (~/.local/share/goose)",
		`AppData/Roaming/Block/goose/data/sessions/20250401_101010.jsonl (~\AppData\Roaming\Block\goose\data)`,
		`AppData/Roaming/Block/goose/data/sessions/named.jsonl (~\AppData\Roaming\Block\goose\data)`,
	}, "\n")
	if got := found(d, home); got != want {
		t.Errorf("found\n%s\nwant\n%s", got, want)
	}
	if !d.Installed || len(d.Warnings) > 0 {
		t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
	}
}

// TestDiscoverEnv: XDG_DATA_HOME and APPDATA move the data directories,
// a relative XDG_DATA_HOME is ignored as the XDG spec says, and
// GOOSE_PATH_ROOT replaces every place with its data folder.
func TestDiscoverEnv(t *testing.T) {
	home, xdg, appdata, root := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	touch(t, home, ".local/share/goose/sessions/sessions.db", "")
	touch(t, xdg, "goose/sessions/sessions.db", "")
	touch(t, appdata, "Block/goose/data/sessions/sessions.db", "")
	touch(t, root, "data/sessions/sessions.db", "")
	touch(t, root, "config/config.yaml", "")

	d := Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("XDG_DATA_HOME", xdg, "APPDATA", appdata)})
	harnesstest.CheckSources(t, d, filepath.Join(xdg, "goose", "sessions", StoreName), filepath.Join(appdata, "Block", "goose", "data", "sessions", StoreName))
	for _, s := range d.Sources {
		if why := s.Reasons[0].String(); why != DataEnv && why != "APPDATA" {
			t.Errorf("%s found for %s", s.Path, why)
		}
	}

	d = Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("XDG_DATA_HOME", "rel/data")})
	harnesstest.CheckSources(t, d, filepath.Join(home, ".local", "share", "goose", "sessions", StoreName))

	d = Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env(RootEnv, root, "XDG_DATA_HOME", xdg)})
	harnesstest.CheckSources(t, d, filepath.Join(root, "data", "sessions", StoreName))
	if len(d.Places) != 1 || d.Places[0].Why != RootEnv {
		t.Errorf("GOOSE_PATH_ROOT looked in %+v", d.Places)
	}

	// A relative GOOSE_PATH_ROOT is ignored, as Goose ignores it.
	d = Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env(RootEnv, "rel")})
	harnesstest.CheckSources(t, d, filepath.Join(home, ".local", "share", "goose", "sessions", StoreName))
}

// TestDiscoverDirs: goose.dirs replaces every place; each entry may be a
// data directory or its sessions folder, and ~ is expanded.
func TestDiscoverDirs(t *testing.T) {
	home, other := t.TempDir(), t.TempDir()
	touch(t, home, ".local/share/goose/sessions/sessions.db", "")
	touch(t, home, "backup/goose/sessions/sessions.db", "")
	touch(t, other, "20250310_151010.jsonl", "")
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: []string{"~/backup/goose", other}})
	harnesstest.CheckSources(t, d, filepath.Join(home, "backup", "goose", "sessions", StoreName), filepath.Join(other, "20250310_151010.jsonl"))
	for _, s := range d.Sources {
		if s.Reasons[0].String() != "goose.dirs" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverNoGoose: a home where Goose never ran yields nothing and no
// warning.
func TestDiscoverNoGoose(t *testing.T) {
	home := t.TempDir()
	touch(t, home, ".config/goose/config.yaml", "")
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: home}))
}
