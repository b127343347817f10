package continuedev

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// GlobalDirEnv is the variable that moves Continue's global folder,
// ~/.continue, and its sessions with it; a relative value is taken from
// the current directory (core/util/paths.ts CONTINUE_GLOBAL_DIR; the cn
// CLI reads it the same way in extensions/cli/src/session.ts).
const GlobalDirEnv = "CONTINUE_GLOBAL_DIR"

// indexFile is the session index beside the session files.
const indexFile = "sessions.json"

// Discover finds the session files, <global>/sessions/<sessionId>.json,
// and never the sessions.json index beside them: in continue.dirs when
// set (each a global folder holding sessions/, or a sessions folder),
// else in $CONTINUE_GLOBAL_DIR/sessions and ~/.continue/sessions. The
// global folder is os.homedir()/.continue on Linux, macOS and Windows
// (%USERPROFILE%\.continue) alike. Sessions written before the variable
// was set stay in ~/.continue, so both are searched. Nothing else in the
// global folder is opened: config.yaml, config.json and .env there can
// hold keys.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct {
		global string // the global folder, "" when a sessions folder was named
		dir    string
		reason harness.Reason
	}
	var places []place
	if len(opts.Dirs) > 0 {
		for _, d := range opts.Dirs {
			d = harness.ExpandHome(d, opts.Home)
			dir, global := d, ""
			if isDir(filepath.Join(d, "sessions")) {
				dir, global = filepath.Join(d, "sessions"), d
			}
			places = append(places, place{global, dir, harness.Reason{Kind: "config", From: dir, Name: "continue.dirs"}})
		}
	} else {
		if env := opts.Env(GlobalDirEnv); env != "" {
			global := harness.ExpandHome(env, opts.Home)
			if !filepath.IsAbs(global) && opts.WorkDir != "" {
				global = filepath.Join(opts.WorkDir, global)
			}
			if filepath.IsAbs(global) {
				dir := filepath.Join(global, "sessions")
				places = append(places, place{global, dir, harness.Reason{Kind: "env", From: dir, Name: GlobalDirEnv}})
			}
		}
		if opts.Home != "" {
			global := filepath.Join(opts.Home, ".continue")
			dir := filepath.Join(global, "sessions")
			places = append(places, place{global, dir, harness.Reason{Kind: "default", From: dir, Name: "~/.continue/sessions"}})
		}
	}
	for _, pl := range places {
		if pl.global != "" && isDir(pl.global) {
			f.Installed()
		}
		if !f.Place(pl.dir, pl.reason.Name) {
			continue
		}
		f.Installed()
		entries, err := os.ReadDir(pl.dir)
		if err != nil {
			f.Warn("cannot read %s: %v", pl.dir, err)
		}
		var names []string
		for _, e := range entries {
			if name := e.Name(); !e.IsDir() && strings.HasSuffix(name, ".json") && name != indexFile {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			f.Add(filepath.Join(pl.dir, name), pl.reason)
		}
	}
	return f.Result()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
