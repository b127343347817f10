package cline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const (
	legacyDoc = `[{"role":"user","content":[{"type":"text","text":"<task>\nhi\n</task>"}]}]`
	sdkDoc    = `{"version":1,"sessionId":"1784094124598_rruoq","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`
)

// TestDiscover lays out every default place in a scratch home and checks
// that each history is found once and nothing beside it is.
func TestDiscover(t *testing.T) {
	home := t.TempDir()
	var want []string
	task := func(storage, ext, id string) {
		dir := filepath.Join(storage, ext, "tasks", id)
		want = append(want, harnesstest.WriteFile(t, filepath.Join(dir, legacyFile), legacyDoc))
		harnesstest.WriteFile(t, filepath.Join(dir, "ui_messages.json"), `[]`)
		harnesstest.WriteFile(t, filepath.Join(dir, "task_metadata.json"), `{}`)
	}
	for i, root := range []string{
		filepath.Join(home, ".config"),
		filepath.Join(home, "Library", "Application Support"),
		filepath.Join(home, "AppData", "Roaming"),
	} {
		for _, host := range hosts {
			storage := filepath.Join(root, host, "User", "globalStorage")
			task(storage, extensions[i%len(extensions)], "1769053680585")
		}
	}
	task(filepath.Join(home, ".vscode-server", "data", "User", "globalStorage"), rooExt, "0b7e9c2a-5d1f-4e3b-9a6c-2f8d1e4b7a90")
	task(filepath.Join(home, ".cursor-server", "data", "User", "globalStorage"), kiloExt, "5e0f3b1c-8a2d-4c7e-b6f1-9d3a2c4e5f60")
	sessions := filepath.Join(home, ".cline", "data", "sessions", "1784094124598_rruoq")
	want = append(want, harnesstest.WriteFile(t, filepath.Join(sessions, "1784094124598_rruoq"+sdkSuffix), sdkDoc))
	want = append(want, harnesstest.WriteFile(t, filepath.Join(sessions, "explorer"+sdkSuffix), sdkDoc))
	harnesstest.WriteFile(t, filepath.Join(sessions, "1784094124598_rruoq.json"), `{}`)
	harnesstest.WriteFile(t, filepath.Join(home, ".config", "Code", "User", "globalStorage", "other.extension", "tasks", "1", legacyFile), legacyDoc)

	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, want...)
	if !d.Installed || len(d.Warnings) != 0 {
		t.Errorf("installed %v, warnings %v", d.Installed, d.Warnings)
	}
}

// TestDiscoverEnv checks the SDK's variables, most specific first, and
// XDG_CONFIG_HOME and APPDATA for the editors' storage.
func TestDiscoverEnv(t *testing.T) {
	home, other := t.TempDir(), t.TempDir()
	env := map[string]string{}
	opts := harness.DiscoverOptions{Home: home, WorkDir: other, Getenv: func(k string) string { return env[k] }}

	// Unset variables leave the default; a relative one is under WorkDir.
	viaDefault := harnesstest.WriteFile(t, filepath.Join(home, ".cline", "data", "sessions", "d_1", "d_1"+sdkSuffix), sdkDoc)
	harnesstest.CheckSources(t, Discover(opts), viaDefault)

	clineDir := filepath.Join(other, "cline-home")
	viaDir := harnesstest.WriteFile(t, filepath.Join(clineDir, "data", "sessions", "a_1", "a_1"+sdkSuffix), sdkDoc)
	env[HomeDirEnv] = "cline-home"
	harnesstest.CheckSources(t, Discover(opts), viaDir)

	dataDir := filepath.Join(other, "cline-data")
	viaData := harnesstest.WriteFile(t, filepath.Join(dataDir, "sessions", "b_1", "b_1"+sdkSuffix), sdkDoc)
	env[DataDirEnv] = dataDir
	harnesstest.CheckSources(t, Discover(opts), viaData)

	sessDir := filepath.Join(other, "cline-sessions")
	viaSess := harnesstest.WriteFile(t, filepath.Join(sessDir, "c_1", "c_1"+sdkSuffix), sdkDoc)
	env[SessionDirEnv] = sessDir
	viaXDG := harnesstest.WriteFile(t, filepath.Join(other, "xdg", "VSCodium", "User", "globalStorage", clineExt, "tasks", "1769053680585", legacyFile), legacyDoc)
	env["XDG_CONFIG_HOME"] = filepath.Join(other, "xdg")
	viaAppData := harnesstest.WriteFile(t, filepath.Join(other, "appdata", "Windsurf", "User", "globalStorage", rooExt, "tasks", "1769053680586", legacyFile), legacyDoc)
	env["APPDATA"] = filepath.Join(other, "appdata")
	harnesstest.CheckSources(t, Discover(opts), viaSess, viaXDG, viaAppData)
}

// TestDiscoverDirs checks that cline.dirs replace the defaults and take a
// sessions folder, a tasks folder, an extension folder or a globalStorage.
func TestDiscoverDirs(t *testing.T) {
	home, other := t.TempDir(), t.TempDir()
	harnesstest.WriteFile(t, filepath.Join(home, ".cline", "data", "sessions", "a_1", "a_1"+sdkSuffix), sdkDoc)
	want := []string{
		harnesstest.WriteFile(t, filepath.Join(other, "s", "b_1", "b_1"+sdkSuffix), sdkDoc),
		harnesstest.WriteFile(t, filepath.Join(other, "t", "1769053680585", legacyFile), legacyDoc),
		harnesstest.WriteFile(t, filepath.Join(other, "e", "tasks", "1769053680586", legacyFile), legacyDoc),
		harnesstest.WriteFile(t, filepath.Join(other, "g", rooExt, "tasks", "1769053680587", legacyFile), legacyDoc),
	}
	var dirs []string
	for _, d := range []string{"s", "t", "e", "g", "missing"} {
		dirs = append(dirs, filepath.Join(other, d))
	}
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: dirs})
	harnesstest.CheckSources(t, d, want...)
	for _, s := range d.Sources {
		if s.Reasons[0].Name != "cline.dirs" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestSideFiles checks what the files beside a history add: an SDK
// manifest's cwd, start and fork, a Roo Code history_item.json's parent
// task and workspace, and a sub-agent transcript's link to its session.
func TestSideFiles(t *testing.T) {
	home := t.TempDir()
	sessions := filepath.Join(home, ".cline", "data", "sessions", "1784094124598_rruoq")
	main := harnesstest.WriteFile(t, filepath.Join(sessions, "1784094124598_rruoq"+sdkSuffix), sdkDoc)
	harnesstest.WriteFile(t, filepath.Join(sessions, "1784094124598_rruoq.json"), `{"cwd":"/srv/app","started_at":"2026-07-15T05:42:04.609Z","metadata":{"fork":{"forkedFromSessionId":"1784094053271_p8pzo"}}}`)
	sub := harnesstest.WriteFile(t, filepath.Join(sessions, "explorer"+sdkSuffix), `{"agent":"subagent","sessionId":"x","messages":[{"role":"user","content":[{"type":"text","text":"look"}]}]}`)
	roo := filepath.Join(home, "g", rooExt, "tasks", "0b7e9c2a-5d1f-4e3b-9a6c-2f8d1e4b7a91")
	child := harnesstest.WriteFile(t, filepath.Join(roo, legacyFile), legacyDoc)
	harnesstest.WriteFile(t, filepath.Join(roo, "history_item.json"), `{"id":"0b7e9c2a-5d1f-4e3b-9a6c-2f8d1e4b7a91","parentTaskId":"0b7e9c2a-5d1f-4e3b-9a6c-2f8d1e4b7a90","workspace":"/home/dev/web","ts":1772438400000}`)

	for _, c := range []struct {
		path, id, project, parent, started string
		subagent                           bool
	}{
		{main, "cline-1784094124598_rruoq", "/srv/app", "cline-1784094053271_p8pzo", "2026-07-15T05:42:04.609Z", false},
		{sub, "cline-1784094124598_rruoq.explorer", "", "cline-1784094124598_rruoq", "", true},
		{child, "cline-roo-0b7e9c2a-5d1f-4e3b-9a6c-2f8d1e4b7a91", "/home/dev/web", "cline-roo-0b7e9c2a-5d1f-4e3b-9a6c-2f8d1e4b7a90", "2026-03-02T08:00:00Z", true},
	} {
		data, _ := os.ReadFile(c.path)
		h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: c.path})
		if len(h.Sessions) != 1 {
			t.Fatalf("%s: %d sessions", c.path, len(h.Sessions))
		}
		s := h.Sessions[0]
		started := ""
		if s.HasStart() {
			started = s.Started.UTC().Format("2006-01-02T15:04:05.999Z07:00")
		}
		if s.ID != c.id || s.Project != c.project || s.Parent != c.parent || s.Subagent != c.subagent || started != c.started {
			t.Errorf("got %s %q %q %v %q, want %s %q %q %v %q", s.ID, s.Project, s.Parent, s.Subagent, started, c.id, c.project, c.parent, c.subagent, c.started)
		}
	}
}

func TestResumeAndIDs(t *testing.T) {
	r := Reader{}
	harnesstest.CheckResumes(t, r, []harnesstest.Resume{
		{"cline-1784094124598_rruoq", "/srv/app", "cd /srv/app && cline --id 1784094124598_rruoq"},
		{"cline-1769053680585", "/srv/app", ""},
		{"cline-roo-0b7e9c2a-5d1f-4e3b-9a6c-2f", "/srv/app", ""},
		{"cline-1784094124598_rruoq.explorer", "/srv/app", ""},
		{"claude-1784094124598_rruoq", "/srv/app", ""},
	})
	for id, want := range map[string]bool{
		"cline-1784094124598_rruoq":                      true,
		"cline-1769053680585":                            true,
		"cline-roo-0b7e9c2a-5d1f-4e3b-9a6c-2f8d1e4b7a90": true,
		"cline-kilo-1769053680585":                       true,
		"cline-1784094124598_rruoq.explorer":             true,
		"cline-":                                         false,
		"cline-a b":                                      false,
		"cline-a.b.c":                                    false,
		"cline-a/b":                                      false,
		"cline-a\x1b[2J":                                 false,
		"roo-1769053680585":                              false,
	} {
		if got := r.ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}
