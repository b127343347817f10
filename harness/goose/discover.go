package goose

import (
	"os"
	"path/filepath"

	"github.com/deja-dev/deja/harness"
)

// The variables that move Goose's data directory (config/paths.rs):
// GOOSE_PATH_ROOT, when absolute, puts it at $GOOSE_PATH_ROOT/data on
// every system; otherwise etcetera's choose_app_strategy places it, XDG
// on Linux and macOS alike ($XDG_DATA_HOME/goose, ~/.local/share/goose)
// and %APPDATA%\Block\goose\data on Windows.
const (
	RootEnv = "GOOSE_PATH_ROOT"
	DataEnv = "XDG_DATA_HOME"
)

// Discover finds Goose's sessions in the sessions folder of its data
// directory, or of each directory of opts.Dirs (the goose.dirs setting,
// each a data directory or a sessions folder): sessions.db where it
// exists, which also reads the legacy files beside it that it does not
// hold; else each legacy <name>.jsonl. Every place of every system is
// looked at: a place that is not there is skipped.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct {
		dir    string
		reason harness.Reason
	}
	var places []place
	switch root := opts.Env(RootEnv); {
	case len(opts.Dirs) > 0:
		for _, dir := range opts.Dirs {
			dir = harness.ExpandHome(dir, opts.Home)
			places = append(places, place{dir, harness.Reason{Kind: "config", From: dir, Name: "goose.dirs"}})
		}
	case filepath.IsAbs(root):
		dir := filepath.Join(root, "data")
		places = append(places, place{dir, harness.Reason{Kind: "env", From: dir, Name: RootEnv}})
	default:
		if x := opts.Env(DataEnv); filepath.IsAbs(x) {
			// The XDG spec ignores a relative XDG_DATA_HOME, as etcetera does.
			dir := filepath.Join(x, "goose")
			places = append(places, place{dir, harness.Reason{Kind: "env", From: dir, Name: DataEnv}})
		} else if opts.Home != "" {
			dir := filepath.Join(opts.Home, ".local", "share", "goose")
			places = append(places, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.local/share/goose"}})
		}
		if a := opts.Env("APPDATA"); filepath.IsAbs(a) {
			dir := filepath.Join(a, "Block", "goose", "data")
			places = append(places, place{dir, harness.Reason{Kind: "env", From: dir, Name: "APPDATA"}})
		} else if opts.Home != "" {
			dir := filepath.Join(opts.Home, "AppData", "Roaming", "Block", "goose", "data")
			places = append(places, place{dir, harness.Reason{Kind: "default", From: dir, Name: `~\AppData\Roaming\Block\goose\data`}})
		}
	}
	for _, pl := range places {
		if !f.Place(pl.dir, pl.reason.String()) {
			continue
		}
		f.Installed()
		sessions := filepath.Join(pl.dir, "sessions")
		if !isDir(sessions) && len(opts.Dirs) > 0 {
			// goose.dirs may name the sessions folder itself.
			sessions = pl.dir
		}
		if store := filepath.Join(sessions, StoreName); isFile(store) {
			f.Add(store, pl.reason)
			continue
		}
		legacy, _ := filepath.Glob(filepath.Join(sessions, "*.jsonl"))
		for _, p := range legacy {
			if isFile(p) {
				f.Add(p, pl.reason)
			}
		}
	}
	return f.Result()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
