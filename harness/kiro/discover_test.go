package kiro

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const (
	chatJSON = `{"sessionId": "0b7c1a52-9f3e-4d61-a2b8-5c4d3e2f1a09", "history": []}`
	chatName = "0b7c1a52-9f3e-4d61-a2b8-5c4d3e2f1a09.json"
	wsName   = "L2hvbWUvdS9zaG9w"
)

// store writes an empty file where the CLI keeps its store: discovery
// looks at names, Sniff and Read at content.
func store(t *testing.T, dir string) string {
	return harnesstest.WriteFile(t, filepath.Join(dir, storeName), "SQLite format 3\x00")
}

// chat writes an IDE chat under the User folder user.
func chat(t *testing.T, user string) string {
	return harnesstest.WriteFile(t, filepath.Join(user, "globalStorage", extensionDir, sessionsDir, wsName, chatName), chatJSON)
}

// TestDiscoverLinux: the Linux places, ~/.local/share/{kiro-cli,amazon-q}
// and ~/.config/Kiro/User; the index and other files are not chats.
func TestDiscoverLinux(t *testing.T) {
	home := t.TempDir()
	a := store(t, filepath.Join(home, ".local", "share", "kiro-cli"))
	b := store(t, filepath.Join(home, ".local", "share", "amazon-q"))
	user := filepath.Join(home, ".config", "Kiro", "User")
	c := chat(t, user)
	ws := filepath.Join(user, "globalStorage", extensionDir, sessionsDir, wsName)
	harnesstest.WriteFile(t, filepath.Join(ws, indexName), "[]")
	harnesstest.WriteFile(t, filepath.Join(ws, "bad name.json"), "{}")
	harnesstest.WriteFile(t, filepath.Join(user, "globalStorage", extensionDir, "other", chatName), chatJSON)
	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, c, b, a)
	if !d.Installed || len(d.Warnings) > 0 {
		t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
	}
	for _, s := range d.Sources {
		if got := s.Reasons[0].String(); got != "~/.local/share" && got != "~/.config/Kiro/User" {
			t.Errorf("%s: reason %q", s.Path, got)
		}
	}
}

// TestDiscoverDarwin: the macOS places under ~/Library/Application
// Support.
func TestDiscoverDarwin(t *testing.T) {
	home := t.TempDir()
	support := filepath.Join(home, "Library", "Application Support")
	a := store(t, filepath.Join(support, "kiro-cli"))
	c := chat(t, filepath.Join(support, "Kiro", "User"))
	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, a, c)
	if got := d.Sources[1].Reasons[0].String(); got != "~/Library/Application Support" {
		t.Errorf("reason %q", got)
	}
}

// TestDiscoverWindows: %LOCALAPPDATA% and %APPDATA% when set, and their
// places under the home folder when not.
func TestDiscoverWindows(t *testing.T) {
	home := t.TempDir()
	local, roaming := filepath.Join(home, "Local"), filepath.Join(home, "Roaming")
	a := store(t, filepath.Join(local, "kiro-cli"))
	c := chat(t, filepath.Join(roaming, "Kiro", "User"))
	d := Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("LOCALAPPDATA", local, "APPDATA", roaming)})
	harnesstest.CheckSources(t, d, a, c)
	if got := d.Sources[0].Reasons[0].String() + "," + d.Sources[1].Reasons[0].String(); got != "LOCALAPPDATA,APPDATA" {
		t.Errorf("reasons %q", got)
	}

	home = t.TempDir()
	a = store(t, filepath.Join(home, "AppData", "Local", "amazon-q"))
	c = chat(t, filepath.Join(home, "AppData", "Roaming", "Kiro", "User"))
	d = Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, a, c)
}

// TestDiscoverXDG: $XDG_DATA_HOME and $XDG_CONFIG_HOME replace
// ~/.local/share and ~/.config; a relative value is ignored, as the XDG
// specification says.
func TestDiscoverXDG(t *testing.T) {
	home := t.TempDir()
	data, config := filepath.Join(home, "data"), filepath.Join(home, "conf")
	a := store(t, filepath.Join(data, "kiro-cli"))
	c := chat(t, filepath.Join(config, "Kiro", "User"))
	store(t, filepath.Join(home, ".local", "share", "kiro-cli"))
	d := Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("XDG_DATA_HOME", data, "XDG_CONFIG_HOME", config)})
	harnesstest.CheckSources(t, d, a, c)
	if got := d.Sources[0].Reasons[0].String() + "," + d.Sources[1].Reasons[0].String(); got != "XDG_CONFIG_HOME,XDG_DATA_HOME" {
		t.Errorf("reason %q", got)
	}
	d = Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("XDG_DATA_HOME", "rel")})
	harnesstest.CheckSources(t, d, filepath.Join(home, ".local", "share", "kiro-cli", storeName))
}

// TestDiscoverDirs: kiro.dirs replace every default; each may hold the
// store itself or kiro-cli/, or be a User, kiro.kiroagent or
// workspace-sessions folder; ~ is expanded.
func TestDiscoverDirs(t *testing.T) {
	home := t.TempDir()
	store(t, filepath.Join(home, ".local", "share", "kiro-cli"))
	a := store(t, filepath.Join(home, "copy"))
	b := store(t, filepath.Join(home, "data", "kiro-cli"))
	c := chat(t, filepath.Join(home, "user"))
	e := harnesstest.WriteFile(t, filepath.Join(home, "agent", sessionsDir, "d3M", chatName), chatJSON)
	f := harnesstest.WriteFile(t, filepath.Join(home, "ws", sessionsDir, "d3M", chatName), chatJSON)
	dirs := []string{"~/copy", filepath.Join(home, "data"), filepath.Join(home, "user"), filepath.Join(home, "agent"), filepath.Join(home, "ws", sessionsDir), filepath.Join(home, "missing")}
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: dirs})
	harnesstest.CheckSources(t, d, e, a, b, c, f)
	for _, s := range d.Sources {
		if got := s.Reasons[0].String(); got != "kiro.dirs" {
			t.Errorf("%s: reason %q", s.Path, got)
		}
	}
	if p := d.Places[len(d.Places)-1]; p.Exists || !strings.HasSuffix(p.Path, "missing") {
		t.Errorf("last place %+v", p)
	}
}

// TestDiscoverSessionFiles: the CLI's v2 session files (cli/<uuid>.jsonl)
// and v3 ones (<workspace>/sess_<id>/messages.jsonl) under ~/.kiro/sessions
// are sources; their headers, other names and a kiro.dirs folder that is
// ~/.kiro or its sessions folder are handled as the layout says.
func TestDiscoverSessionFiles(t *testing.T) {
	home := t.TempDir()
	sessions := filepath.Join(home, ".kiro", "sessions")
	v2 := harnesstest.WriteFile(t, filepath.Join(sessions, "cli", convID+".jsonl"), "{}\n")
	harnesstest.WriteFile(t, filepath.Join(sessions, "cli", convID+".json"), "{}")
	harnesstest.WriteFile(t, filepath.Join(sessions, "cli", "notes.jsonl"), "{}\n")
	v3 := harnesstest.WriteFile(t, filepath.Join(sessions, "L2hvbWU", "sess_1", "messages.jsonl"), "{}\n")
	harnesstest.WriteFile(t, filepath.Join(sessions, "L2hvbWU", "sess_1", "session.json"), "{}")
	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, v3, v2)
	if len(d.Warnings) > 0 {
		t.Errorf("warnings %q", d.Warnings)
	}
	for _, dir := range []string{"~/.kiro", sessions} {
		d = Discover(harness.DiscoverOptions{Home: home, Dirs: []string{dir}})
		harnesstest.CheckSources(t, d, v3, v2)
	}
}

// TestDiscoverNothing: no agent, no warning, nothing installed.
func TestDiscoverNothing(t *testing.T) {
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: t.TempDir()}))
	if d := Discover(harness.DiscoverOptions{}); len(d.Places) > 0 {
		t.Errorf("without a home, looked at %v", d.Places)
	}
}
