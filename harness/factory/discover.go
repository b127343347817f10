package factory

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Discover finds the session files: under each factory.dirs folder when
// set (a .factory folder holding sessions/, or a sessions folder), else
// under ~/.factory/sessions, the same on Linux, macOS and Windows (droid
// keeps it under the home directory, %USERPROFILE% on Windows; no
// variable moves it that Factory documents). It takes
// sessions/<slug>/<uuid>.jsonl, the slug the working directory with its
// separators turned into '-', and sessions/<uuid>.jsonl, the flat layout
// of older builds. It reads nothing else there or in ~/.factory: the
// .settings.json sidecars hold no conversation, and auth files hold keys.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct {
		dir    string
		reason harness.Reason
	}
	var places []place
	if len(opts.Dirs) > 0 {
		for _, d := range opts.Dirs {
			dir := harness.ExpandHome(d, opts.Home)
			if info, err := os.Stat(filepath.Join(dir, "sessions")); err == nil && info.IsDir() {
				dir = filepath.Join(dir, "sessions")
			}
			places = append(places, place{dir, harness.Reason{Kind: "config", From: dir, Name: "factory.dirs"}})
		}
	} else if opts.Home != "" {
		root := filepath.Join(opts.Home, ".factory")
		if info, err := os.Stat(root); err == nil && info.IsDir() {
			f.Installed()
		}
		dir := filepath.Join(root, "sessions")
		places = append(places, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.factory/sessions"}})
	}
	for _, pl := range places {
		if !f.Place(pl.dir, pl.reason.Name) {
			continue
		}
		f.Installed()
		entries, err := os.ReadDir(pl.dir)
		if err != nil {
			f.Warn("cannot read %s: %v", pl.dir, err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				addSession(&f, pl.dir, e, pl.reason)
				continue
			}
			sub := filepath.Join(pl.dir, e.Name())
			files, _ := os.ReadDir(sub)
			for _, s := range files {
				if !s.IsDir() {
					addSession(&f, sub, s, pl.reason)
				}
			}
		}
	}
	return f.Result()
}

// addSession adds dir/<uuid>.jsonl; a sidecar or any other file is left.
func addSession(f *harness.Finder, dir string, e os.DirEntry, r harness.Reason) {
	if stem, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && harness.IsUUID(stem) {
		f.Add(filepath.Join(dir, e.Name()), r)
	}
}
