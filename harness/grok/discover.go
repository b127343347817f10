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
	type root struct {
		dir    string
		reason harness.Reason
	}
	var roots []root
	if len(opts.Dirs) > 0 {
		for _, d := range opts.Dirs {
			d = harness.ExpandHome(d, opts.Home)
			if filepath.Base(d) != "sessions" {
				if info, err := os.Stat(filepath.Join(d, "sessions")); err == nil && info.IsDir() {
					d = filepath.Join(d, "sessions")
				}
			}
			roots = append(roots, root{d, harness.Reason{Kind: "config", From: d, Name: "grok.dirs"}})
		}
	} else {
		if v := opts.Env(HomeEnv); v != "" {
			dir := harness.ExpandHome(v, opts.Home)
			if !filepath.IsAbs(dir) && opts.WorkDir != "" {
				dir = filepath.Join(opts.WorkDir, dir)
			}
			roots = append(roots, root{filepath.Join(dir, "sessions"), harness.Reason{Kind: "env", From: dir, Name: HomeEnv}})
		}
		if opts.Home != "" {
			dir := filepath.Join(opts.Home, ".grok", "sessions")
			roots = append(roots, root{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.grok/sessions"}})
		}
	}
	for _, r := range roots {
		if !f.Place(r.dir, r.reason.Name) {
			continue
		}
		f.Installed()
		groups, err := os.ReadDir(r.dir)
		if err != nil {
			f.Warn("cannot read %s: %v", r.dir, err)
		}
		for _, g := range groups {
			if g.IsDir() {
				findSessions(&f, filepath.Join(r.dir, g.Name()), r.reason)
			}
		}
	}
	return f.Result()
}

// findSessions adds the updates.jsonl of each session folder of one cwd
// folder.
func findSessions(f *harness.Finder, group string, r harness.Reason) {
	entries, _ := os.ReadDir(group)
	for _, e := range entries {
		if !e.IsDir() || !harness.IsUUID(e.Name()) {
			continue
		}
		p := filepath.Join(group, e.Name(), updatesFile)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			f.Add(p, r)
		}
	}
}
