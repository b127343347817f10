package crush

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// store writes an empty file where a Crush store would be, below root.
func store(t *testing.T, root, p string) string {
	return harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), "")
}

// projectsJSON writes Crush's projects.json into dir, listing each
// project (below root) with its data directory.
func projectsJSON(t *testing.T, dir, root string, projects ...string) {
	var list []string
	for _, p := range projects {
		abs := filepath.Join(root, filepath.FromSlash(p))
		list = append(list, `{"path":`+quote(abs)+`,"data_dir":`+quote(filepath.Join(abs, ".crush"))+`,"last_accessed":"2025-12-25T10:00:00Z"}`)
	}
	harnesstest.WriteFile(t, filepath.Join(dir, "projects.json"), `{"projects":[`+strings.Join(list, ",")+`]}`)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

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

// TestDiscover lays Crush's files out in a scratch home as Linux and macOS
// (~/.local/share/crush) and Windows (~\AppData\Local\crush) keep them, a
// project listed twice, one whose store is gone, and a project deja runs
// in below which the working directory lies.
func TestDiscover(t *testing.T) {
	home := t.TempDir()
	store(t, home, "code/shop/.crush/crush.db")
	store(t, home, "code/shop/.crush/crush.db-wal")
	store(t, home, "code/api/.crush/crush.db")
	store(t, home, "src/win/.crush/crush.db")
	store(t, home, "here/.crush/crush.db")
	store(t, home, "listed/.crush/crush.db")
	store(t, home, "unlisted/.crush/crush.db")
	if err := os.MkdirAll(filepath.Join(home, "here", "sub", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	projectsJSON(t, filepath.Join(home, ".local", "share", "crush"), home, "code/shop", "code/api", "code/gone")
	projectsJSON(t, filepath.Join(home, "AppData", "Local", "crush"), home, "src/win", "code/shop")
	harnesstest.WriteFile(t, filepath.Join(home, ".config", "deja", "aider-projects"), "# deja aider\n"+filepath.Join(home, "listed")+"\nrelative/dir\n")
	d := Discover(harness.DiscoverOptions{Home: home, WorkDir: filepath.Join(home, "here", "sub", "dir"), ConfigDir: filepath.Join(home, ".config", "deja")})
	want := strings.Join([]string{
		"code/api/.crush/crush.db (~/.local/share/crush projects.json)",
		`code/shop/.crush/crush.db (~/.local/share/crush projects.json, ~\AppData\Local\crush projects.json)`,
		"here/.crush/crush.db (this project)",
		"listed/.crush/crush.db (aider-projects)",
		`src/win/.crush/crush.db (~\AppData\Local\crush projects.json)`,
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
}

// TestDiscoverEnv follows CRUSH_GLOBAL_DATA, then XDG_DATA_HOME, then
// LOCALAPPDATA, instead of the places they move, and crush.dirs instead
// of all.
func TestDiscoverEnv(t *testing.T) {
	home, other := t.TempDir(), t.TempDir()
	for _, p := range []string{"a", "b", "c", "default"} {
		store(t, other, p+"/.crush/crush.db")
	}
	projectsJSON(t, filepath.Join(home, ".local", "share", "crush"), other, "default")
	projectsJSON(t, filepath.Join(other, "global"), other, "a")
	projectsJSON(t, filepath.Join(other, "xdg", "crush"), other, "b")
	projectsJSON(t, filepath.Join(other, "local", "crush"), other, "c")
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"CRUSH_GLOBAL_DATA", filepath.Join(other, "global"), "XDG_DATA_HOME", filepath.Join(other, "xdg")}, "a/.crush/crush.db (CRUSH_GLOBAL_DATA projects.json)"},
		{[]string{"XDG_DATA_HOME", filepath.Join(other, "xdg"), "LOCALAPPDATA", filepath.Join(other, "local")}, "b/.crush/crush.db (XDG_DATA_HOME projects.json)"},
		{[]string{"XDG_DATA_HOME", "relative", "LOCALAPPDATA", filepath.Join(other, "local")}, "c/.crush/crush.db (LOCALAPPDATA projects.json)\ndefault/.crush/crush.db (~/.local/share/crush projects.json)"},
	} {
		d := Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env(c.env...)})
		if got := found(d, other); got != c.want {
			t.Errorf("%q: found\n%s\nwant\n%s", c.env, got, c.want)
		}
	}

	// crush.dirs: a data directory, a project, and a global data
	// directory, in place of every other.
	store(t, other, "custom/data/crush.db")
	d := Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("CRUSH_GLOBAL_DATA", filepath.Join(other, "global")),
		Dirs: []string{filepath.Join(other, "custom", "data"), filepath.Join(other, "b"), filepath.Join(other, "xdg", "crush"), filepath.Join(other, "nowhere")}})
	want := "b/.crush/crush.db (crush.dirs, crush.dirs projects.json)\ncustom/data/crush.db (crush.dirs)"
	if got := found(d, other); got != want {
		t.Errorf("with crush.dirs found\n%s\nwant\n%s", got, want)
	}

	d = Discover(harness.DiscoverOptions{Home: t.TempDir(), WorkDir: t.TempDir()})
	if len(d.Places) == 0 {
		t.Fatal("an empty home: no place looked in")
	}
	harnesstest.CheckNoAgent(t, d)
}

// TestDiscoverBadList: a projects.json that is not Crush's list is a
// warning that names it, and Crush counts as installed.
func TestDiscoverBadList(t *testing.T) {
	home := t.TempDir()
	harnesstest.WriteFile(t, filepath.Join(home, ".local", "share", "crush", "projects.json"), "{not json")
	d := Discover(harness.DiscoverOptions{Home: home})
	if !d.Installed || len(d.Sources) != 0 || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "projects.json is not Crush's list of projects") {
		t.Errorf("installed %v, sources %v, warnings %q", d.Installed, d.Sources, d.Warnings)
	}
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		path, head string
		ok         bool
	}{
		{"/p/.crush/crush.db", "SQLite format 3\x00", true},
		{"/data/crush.db", "SQLite format 3\x00", true},
		{"/p/.crush/crush.db", "not sqlite", false},
		{"/p/.crush/crush.db-wal", "SQLite format 3\x00", false},
		{"/p/.local/share/opencode/opencode.db", "SQLite format 3\x00", false},
	} {
		if err := (Reader{}).Sniff(c.path, []byte(c.head)); (err == nil) != c.ok {
			t.Errorf("Sniff(%s, %q) = %v", c.path, c.head, err)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, ok := range map[string]bool{
		"crush-11111111-1111-4111-8111-111111111111":                       true,
		"crush-11111111-1111-4111-8111-111111111111.toolu_01ABCdef":        true,
		"crush-11111111-1111-4111-8111-111111111111.call_PjxkqYJjMmlFSJTH": true,
		"crush-title-11111111-1111-4111-8111-111111111111":                 false,
		"crush-11111111-1111-4111-8111-111111111111.":                      false,
		"crush-11111111-1111-4111-8111-111111111111.a.b":                   false,
		"crush-11111111-1111-4111-8111-111111111111$$toolu_01":             false,
		"crush-not-a-uuid": false,
		"opencode-11111111-1111-4111-8111-111111111111": false,
	} {
		if (Reader{}).ValidID(id) != ok {
			t.Errorf("ValidID(%q) = %v", id, !ok)
		}
	}
	if got := sessionID("11111111-1111-4111-8111-111111111111$$toolu_01"); got != "crush-11111111-1111-4111-8111-111111111111.toolu_01" {
		t.Errorf("a sub-agent's session is %q", got)
	}
}

func TestResume(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"crush-11111111-1111-4111-8111-111111111111", "/Users/me/my shop", "cd '/Users/me/my shop' && crush --session 11111111-1111-4111-8111-111111111111"},
		{"crush-11111111-1111-4111-8111-111111111111", "", ""},
		{"crush-11111111-1111-4111-8111-111111111111.toolu_01", "/p", ""},
		{"opencode-ses_1", "/p", ""},
	})
	for id, want := range map[string]string{
		"crush-11111111-1111-4111-8111-111111111111.toolu_01": "sub-agent",
		"crush-11111111-1111-4111-8111-111111111111":          "crush --session 11111111-1111-4111-8111-111111111111",
	} {
		if got := (Reader{}).ResumeRefusal(id, ""); !strings.Contains(got, want) {
			t.Errorf("ResumeRefusal(%q) = %q, want it to say %q", id, got, want)
		}
	}
}

// TestUnixTime reads the seconds Crush writes and the milliseconds its
// schema's comments promise.
func TestUnixTime(t *testing.T) {
	for v, want := range map[int64]string{
		1754564150:      "2025-08-07T10:55:50Z",
		1754564150123:   "2025-08-07T10:55:50.123Z",
		0:               "",
		-5:              "",
		1 << 62:         "",
		253402300799999: "9999-12-31T23:59:59.999Z",
		253402300800000: "",
		99999999999:     "5138-11-16T09:46:39Z",
		100000000001:    "1973-03-03T09:46:40.001Z",
	} {
		got := ""
		if tm := unixTime(v); !tm.IsZero() {
			got = tm.Format(time.RFC3339Nano)
		}
		if got != want {
			t.Errorf("unixTime(%d) = %q, want %q", v, got, want)
		}
	}
}
