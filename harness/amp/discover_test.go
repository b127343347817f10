package amp

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const (
	tid       = "T-019b9d03-62e3-772f-9780-3e637f90eaec"
	threadDoc = `{"v":1,"id":"` + tid + `","created":1767865803494,"messages":[{"role":"user","messageId":0,"content":[{"type":"text","text":"hi"}]}]}`
)

// TestDiscover lays out the CLI's default folder and the extension's old
// folders for Linux, macOS and Windows in a scratch home and checks that
// each thread is found once and nothing beside it is.
func TestDiscover(t *testing.T) {
	home := t.TempDir()
	threads := filepath.Join(home, ".local", "share", "amp", "threads")
	want := []string{harnesstest.WriteFile(t, filepath.Join(threads, tid+".json"), threadDoc)}
	harnesstest.WriteFile(t, filepath.Join(threads, "notes.json"), `{}`)
	harnesstest.WriteFile(t, filepath.Join(home, ".local", "share", "amp", "history.jsonl"), `{"text":"hi"}`)
	harnesstest.WriteFile(t, filepath.Join(home, ".config", "amp", "settings.json"), `{}`)
	for i, root := range []string{
		filepath.Join(home, ".config"),
		filepath.Join(home, "Library", "Application Support"),
		filepath.Join(home, "AppData", "Roaming"),
	} {
		dir := filepath.Join(root, hosts[i], "User", "globalStorage", legacyDir)
		want = append(want, harnesstest.WriteFile(t, filepath.Join(dir, "T-5a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4"+string(rune('b'+i))+".json"), threadDoc))
	}
	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, want...)
	if !d.Installed || len(d.Warnings) != 0 {
		t.Errorf("installed %v, warnings %v", d.Installed, d.Warnings)
	}
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: t.TempDir()}))
}

// TestDiscoverEnv checks XDG_DATA_HOME (absolute, relative to the working
// directory, or unset), XDG_CONFIG_HOME and APPDATA for the editors'
// folders, and amp.dirs replacing every default place.
func TestDiscoverEnv(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	def := harnesstest.WriteFile(t, filepath.Join(home, ".local", "share", "amp", "threads", tid+".json"), threadDoc)
	xdg := harnesstest.WriteFile(t, filepath.Join(work, "data", "amp", "threads", "T-11111111-2222-4333-8444-555555555555.json"), threadDoc)
	app := harnesstest.WriteFile(t, filepath.Join(work, "roaming", "Code", "User", "globalStorage", legacyDir, "T-11111111-2222-4333-8444-666666666666.json"), threadDoc)
	cfg := harnesstest.WriteFile(t, filepath.Join(work, "cfg", "Cursor", "User", "globalStorage", legacyDir, "T-11111111-2222-4333-8444-777777777777.json"), threadDoc)

	opts := harness.DiscoverOptions{Home: home, WorkDir: work}
	harnesstest.CheckSources(t, Discover(opts), def)

	opts.Getenv = harnesstest.Env(DataHomeEnv, "data", "APPDATA", filepath.Join(work, "roaming"), "XDG_CONFIG_HOME", filepath.Join(work, "cfg"))
	d := Discover(opts)
	harnesstest.CheckSources(t, d, def, xdg, app, cfg)
	for _, s := range d.Sources {
		if s.Path == xdg && s.Reasons[0].Name != DataHomeEnv {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}

	opts.Dirs = []string{filepath.Join(work, "data", "amp"), filepath.Dir(app)}
	d = Discover(opts)
	harnesstest.CheckSources(t, d, xdg, app)
	for _, s := range d.Sources {
		if s.Reasons[0].Name != "amp.dirs" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverUnreadable checks that a threads folder that is a file is a
// warning, not a failure.
func TestDiscoverUnreadable(t *testing.T) {
	home := t.TempDir()
	harnesstest.WriteFile(t, filepath.Join(home, ".local", "share", "amp", "threads"), "")
	d := Discover(harness.DiscoverOptions{Home: home})
	if len(d.Sources) != 0 || len(d.Warnings) != 1 {
		t.Errorf("sources %v, warnings %q", d.Sources, d.Warnings)
	}
}
