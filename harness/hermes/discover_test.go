package hermes

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// touch writes an empty file at p under root, and its directories.
func touch(t *testing.T, root, p string) {
	harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), "")
}

// found lists the sources relative to root, each with its reasons.
func found(d harness.Discovery, root string) string {
	var out []string
	for _, s := range d.Sources {
		rel, _ := filepath.Rel(root, s.Path)
		var why []string
		for _, r := range s.Reasons {
			why = append(why, strings.ReplaceAll(r.String(), root, "<root>"))
		}
		out = append(out, filepath.ToSlash(rel)+" ("+strings.Join(why, ", ")+")")
	}
	return strings.Join(out, "\n")
}

func checkFound(t *testing.T, d harness.Discovery, root string, want ...string) {
	t.Helper()
	if got := found(d, root); got != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if len(d.Warnings) > 0 {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// TestDiscover lays Hermes's stores out in a scratch home, in the default
// places of Linux and macOS (~/.hermes) and Windows (AppData\Local\hermes
// without LOCALAPPDATA), with profiles, a deleted profile's tombstone and
// files that are not stores beside them.
func TestDiscover(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{
		".hermes/state.db",
		".hermes/state.db-wal",
		".hermes/config.yaml",
		".hermes/profiles/work/state.db",
		".hermes/profiles/work/sessions/old.jsonl",
		".hermes/profiles/.deleted/old",
		".hermes/profiles/.trash/state.db",
		"AppData/Local/hermes/state.db",
	} {
		touch(t, home, p)
	}
	d := Discover(harness.DiscoverOptions{Home: home})
	checkFound(t, d, home,
		".hermes/profiles/work/state.db (~/.hermes)",
		".hermes/state.db (~/.hermes)",
		`AppData/Local/hermes/state.db (~\AppData\Local\hermes)`)
	if !d.Installed {
		t.Error("not installed")
	}
	for _, s := range d.Sources {
		if err := (Reader{}).Sniff(s.Path, sqliteMagic); err != nil {
			t.Errorf("%s: %v", s.Path, err)
		}
	}
	if err := (Reader{}).Sniff(filepath.Join(home, ".hermes", "config.yaml"), sqliteMagic); err == nil {
		t.Error("Sniff took config.yaml for a store")
	}
	if err := (Reader{}).Sniff(filepath.Join(home, ".hermes", "state.db"), []byte("not sqlite")); err == nil {
		t.Error("Sniff took a state.db that is not SQLite for a store")
	}
}

// TestDiscoverEnv follows HERMES_HOME (relative to the working directory,
// and a profile home with its root), LOCALAPPDATA on Windows and
// HERMES_DATA_DIR_SUFFIX.
func TestDiscoverEnv(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		"custom/state.db",
		"custom/profiles/a/state.db",
		"srv/hermes/state.db",
		"srv/hermes/profiles/bot/state.db",
		"local/hermes/state.db",
		"home/.hermes-dev/state.db",
		"home/.hermes/state.db",
	} {
		touch(t, root, p)
	}
	d := Discover(harness.DiscoverOptions{Home: filepath.Join(root, "home"), WorkDir: root, Getenv: harnesstest.Env(HomeEnv, "custom")})
	checkFound(t, d, root,
		"custom/profiles/a/state.db (HERMES_HOME)",
		"custom/state.db (HERMES_HOME)")

	d = Discover(harness.DiscoverOptions{Home: filepath.Join(root, "home"), Getenv: harnesstest.Env(HomeEnv, filepath.Join(root, "srv", "hermes", "profiles", "bot"))})
	checkFound(t, d, root,
		"srv/hermes/profiles/bot/state.db (HERMES_HOME)",
		"srv/hermes/state.db (HERMES_HOME)")

	d = Discover(harness.DiscoverOptions{Home: filepath.Join(root, "home"), Getenv: harnesstest.Env("LOCALAPPDATA", filepath.Join(root, "local"), SuffixEnv, "")})
	checkFound(t, d, root,
		"home/.hermes/state.db (~/.hermes)",
		"local/hermes/state.db (LOCALAPPDATA)")

	d = Discover(harness.DiscoverOptions{Home: filepath.Join(root, "home"), Getenv: harnesstest.Env(SuffixEnv, "-dev")})
	checkFound(t, d, root, "home/.hermes-dev/state.db (~/.hermes-dev)")
}

// TestDiscoverDirs reads each directory of hermes.dirs as a home, in
// place of every default.
func TestDiscoverDirs(t *testing.T) {
	root := t.TempDir()
	touch(t, root, "home/.hermes/state.db")
	touch(t, root, "backup/state.db")
	touch(t, root, "backup/profiles/x/state.db")
	d := Discover(harness.DiscoverOptions{Home: filepath.Join(root, "home"), Dirs: []string{filepath.Join(root, "backup"), filepath.Join(root, "missing")}})
	checkFound(t, d, root,
		"backup/profiles/x/state.db (hermes.dirs)",
		"backup/state.db (hermes.dirs)")
}

// TestDiscoverNothing looks in a home where Hermes never ran.
func TestDiscoverNothing(t *testing.T) {
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: t.TempDir()}))
}

// TestDiscoverHomeIsFile warns of a HERMES_HOME that is a file.
func TestDiscoverHomeIsFile(t *testing.T) {
	root := t.TempDir()
	touch(t, root, "file")
	d := Discover(harness.DiscoverOptions{Home: root, Getenv: harnesstest.Env(HomeEnv, filepath.Join(root, "file"))})
	if len(d.Sources) != 0 || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "HERMES_HOME") {
		t.Errorf("sources %v, warnings %q", d.Sources, d.Warnings)
	}
}
