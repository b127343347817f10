package zed

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// store writes an empty file where a store would be, below root.
func store(t *testing.T, root, p string) string {
	return harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), "")
}

// found lists the sources relative to root, each with its reasons.
func found(d harness.Discovery, root string) string {
	var out []string
	for _, s := range d.Sources {
		rel, _ := filepath.Rel(root, s.Path)
		var why []string
		for _, r := range s.Reasons {
			why = append(why, r.String())
		}
		out = append(out, filepath.ToSlash(rel)+" ("+strings.Join(why, ", ")+")")
	}
	return strings.Join(out, "\n")
}

// TestDiscover lays Zed's store out in a scratch home as Linux, its
// Flatpak build, macOS and Windows keep it, each looked at whatever the
// system deja runs on, beside a threads directory with no store yet.
func TestDiscover(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{
		".local/share/zed/threads/threads.db",
		".local/share/zed/threads/threads.db-wal",
		".var/app/dev.zed.Zed/data/zed/threads/threads.db",
		"Library/Application Support/Zed/threads/threads.db",
		"AppData/Local/Zed/threads/threads.db",
		".local/share/zed/db/0-stable/db.sqlite",
	} {
		store(t, home, p)
	}
	d := Discover(harness.DiscoverOptions{Home: home})
	want := strings.Join([]string{
		`.local/share/zed/threads/threads.db (~/.local/share/zed)`,
		`.var/app/dev.zed.Zed/data/zed/threads/threads.db (~/.var/app/dev.zed.Zed/data/zed)`,
		`AppData/Local/Zed/threads/threads.db (~\AppData\Local\Zed)`,
		`Library/Application Support/Zed/threads/threads.db (~/Library/Application Support/Zed)`,
	}, "\n")
	if got := found(d, home); got != want {
		t.Errorf("found\n%s\nwant\n%s", got, want)
	}
	if !d.Installed || len(d.Warnings) > 0 {
		t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
	}
	for _, s := range d.Sources {
		if err := (Reader{}).Sniff(s.Path, sqliteMagic); err != nil {
			t.Errorf("%s: %v", s.Path, err)
		}
	}

	// Zed ran and its agent has not made its store yet: nothing to read.
	home = t.TempDir()
	store(t, home, ".local/share/zed/threads/.keep")
	if d := Discover(harness.DiscoverOptions{Home: home}); d.Installed || len(d.Sources) != 0 {
		t.Errorf("no store: installed %v, sources %v", d.Installed, d.Sources)
	}
}

// TestDiscoverEnv follows XDG_DATA_HOME instead of ~/.local/share, and
// LOCALAPPDATA instead of ~\AppData\Local; a relative value is ignored,
// as the XDG spec says. FLATPAK_XDG_DATA_HOME is set only inside Zed's
// sandbox, where deja does not run, and is not followed. zed.dirs
// replaces them all.
func TestDiscoverEnv(t *testing.T) {
	home, other := t.TempDir(), t.TempDir()
	for _, p := range []string{"flatpak/zed", "xdg/zed", "local/Zed", "custom", "custom/threads"} {
		store(t, other, p+"/threads/threads.db")
	}
	store(t, home, ".local/share/zed/threads/threads.db")
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"FLATPAK_XDG_DATA_HOME", filepath.Join(other, "flatpak"), "XDG_DATA_HOME", filepath.Join(other, "xdg")}, "xdg/zed/threads/threads.db (XDG_DATA_HOME)"},
		{[]string{"XDG_DATA_HOME", filepath.Join(other, "xdg")}, "xdg/zed/threads/threads.db (XDG_DATA_HOME)"},
		{[]string{"LOCALAPPDATA", filepath.Join(other, "local"), "XDG_DATA_HOME", filepath.Join(other, "empty")}, "local/Zed/threads/threads.db (LOCALAPPDATA)"},
	} {
		d := Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env(c.env...)})
		if got := found(d, other); got != c.want {
			t.Errorf("%q: found\n%s\nwant\n%s", c.env, got, c.want)
		}
	}
	d := Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("XDG_DATA_HOME", "relative")})
	if got := found(d, home); got != ".local/share/zed/threads/threads.db (~/.local/share/zed)" {
		t.Errorf("a relative XDG_DATA_HOME: found %s", got)
	}

	// zed.dirs: a data directory (Zed's --user-data-dir), a threads
	// directory, and a place that is not there, in place of every other.
	d = Discover(harness.DiscoverOptions{Home: home, WorkDir: other, Getenv: harnesstest.Env("XDG_DATA_HOME", filepath.Join(other, "xdg")),
		Dirs: []string{"custom", filepath.Join(other, "local", "Zed", "threads"), filepath.Join(other, "nowhere")}})
	want := "custom/threads/threads.db (zed.dirs)\nlocal/Zed/threads/threads.db (zed.dirs)"
	if got := found(d, other); got != want {
		t.Errorf("with zed.dirs found\n%s\nwant\n%s", got, want)
	}

	d = Discover(harness.DiscoverOptions{Home: t.TempDir(), WorkDir: t.TempDir()})
	if len(d.Places) == 0 {
		t.Fatal("an empty home: no place looked in")
	}
	harnesstest.CheckNoAgent(t, d)
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		path, head string
		ok         bool
	}{
		{"/h/.local/share/zed/threads/threads.db", "SQLite format 3\x00", true},
		{"/copy/threads.db", "SQLite format 3\x00", true},
		{"/h/.local/share/zed/threads/threads.db", "not sqlite", false},
		{"/h/.local/share/zed/threads/threads.db-wal", "SQLite format 3\x00", false},
		{"/h/.local/share/zed/db/0-stable/db.sqlite", "SQLite format 3\x00", false},
	} {
		if err := (Reader{}).Sniff(c.path, []byte(c.head)); (err == nil) != c.ok {
			t.Errorf("Sniff(%s, %q) = %v", c.path, c.head, err)
		}
	}
}
