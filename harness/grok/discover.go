package grok

import (
	"os"
	"path/filepath"

	"github.com/deja-dev/deja/harness"
)

// HomeEnv moves Grok's whole home, sessions included
// (xai-grok-home: $GROK_HOME verbatim when set, else <home>/.grok).
const HomeEnv = "GROK_HOME"

// Discover finds the session files under each Grok home: the grok.dirs
// configuration when set (each a Grok home holding sessions/, or a
// sessions folder), else $GROK_HOME and ~/.grok, the same on Linux, macOS
// and Windows (Grok joins the home directory, %USERPROFILE% on Windows,
// and .grok on every system). Sessions written before the variable was
// set stay in the home folder, so both are searched.
//
// It takes sessions/<cwd folder>/<session uuid>/updates.jsonl and opens
// nothing else there. ~/.grok is shared: @vibe-kit/grok-cli keeps its
// history in ~/.grok/grok.db (SQLite) and its settings in
// user-settings.json, another agent's files, so ~/.grok alone does not
// mean Grok Build ran: its sessions folder does.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	if len(opts.Dirs) > 0 {
		for _, d := range opts.Dirs {
			d = harness.ExpandHome(d, opts.Home)
			if info, err := os.Stat(filepath.Join(d, "sessions")); err == nil && info.IsDir() {
				d = filepath.Join(d, "sessions")
			}
			search(&f, d, harness.Reason{Kind: "config", From: d, Name: "grok.dirs"})
		}
		return f.Result()
	}
	if v := opts.Env(HomeEnv); v != "" {
		dir := harness.ExpandHome(v, opts.Home)
		if !filepath.IsAbs(dir) && opts.WorkDir != "" {
			dir = filepath.Join(opts.WorkDir, dir)
		}
		search(&f, filepath.Join(dir, "sessions"), harness.Reason{Kind: "env", From: dir, Name: HomeEnv})
	}
	if opts.Home != "" {
		dir := filepath.Join(opts.Home, ".grok", "sessions")
		search(&f, dir, harness.Reason{Kind: "default", From: dir, Name: "~/.grok/sessions"})
	}
	return f.Result()
}

// search adds the updates.jsonl of each session folder of each cwd folder
// of a sessions folder.
func search(f *harness.Finder, dir string, r harness.Reason) {
	if !f.Place(dir, r.Name) {
		return
	}
	f.Installed()
	groups, err := os.ReadDir(dir)
	if err != nil {
		f.Warn("cannot read %s: %v", dir, err)
	}
	for _, g := range groups {
		entries, _ := os.ReadDir(filepath.Join(dir, g.Name()))
		for _, e := range entries {
			p := filepath.Join(dir, g.Name(), e.Name(), updatesFile)
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && harness.IsUUID(e.Name()) {
				f.Add(p, r)
			}
		}
	}
}
