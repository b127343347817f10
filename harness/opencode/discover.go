package opencode

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// DataEnv is the XDG variable that moves OpenCode's data directory:
// $XDG_DATA_HOME/opencode, ~/.local/share/opencode when unset.
const DataEnv = "XDG_DATA_HOME"

// Discover finds OpenCode's stores in its data directory, or in the
// directories of opts.Dirs (the opencode.dirs setting) instead: the
// SQLite stores opencode.db and opencode-<channel>.db (the name follows
// the release channel: FORMATS.md §4.1). Only where no store exists yet
// are the JSON trees of older releases read, storage/ (1.0–1.1) and
// project/<id>/storage/ (0.5): OpenCode 1.2 migrates them into the store,
// and reading both would read each session twice.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var d harness.Discovery
	type place struct {
		dir    string
		reason harness.Reason
	}
	var places []place
	switch {
	case len(opts.Dirs) > 0:
		for _, dir := range opts.Dirs {
			dir = expandHome(dir, opts.Home)
			places = append(places, place{dir, harness.Reason{Kind: "config", From: dir, Name: "opencode.dirs"}})
		}
	case filepath.IsAbs(opts.Env(DataEnv)):
		// The XDG spec ignores a relative XDG_DATA_HOME.
		dir := filepath.Join(opts.Env(DataEnv), "opencode")
		places = append(places, place{dir, harness.Reason{Kind: "env", From: dir, Name: DataEnv}})
	case opts.Home != "":
		dir := filepath.Join(opts.Home, ".local", "share", "opencode")
		places = append(places, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.local/share/opencode"}})
	}
	seen := map[string]bool{}
	for _, pl := range places {
		fi, err := os.Stat(pl.dir)
		exists := err == nil && fi.IsDir()
		d.Places = append(d.Places, harness.Place{Path: pl.dir, Why: pl.reason.String(), Exists: exists})
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			d.Warnings = append(d.Warnings, "cannot read "+pl.dir+" ("+pl.reason.String()+"): "+err.Error())
			continue
		case !fi.IsDir():
			d.Warnings = append(d.Warnings, pl.dir+" is not a directory ("+pl.reason.String()+"); name OpenCode's data directory")
			continue
		}
		d.Installed = true
		for _, p := range storeSources(pl.dir) {
			resolved, err := filepath.EvalSymlinks(p)
			if err != nil || seen[resolved] {
				continue
			}
			seen[resolved] = true
			size, mod, ok := sourceState(resolved)
			if !ok {
				continue
			}
			d.Sources = append(d.Sources, harness.Source{Path: resolved, Reasons: []harness.Reason{pl.reason}, Size: size, ModTime: mod})
		}
	}
	sort.Slice(d.Sources, func(i, j int) bool { return d.Sources[i].Path < d.Sources[j].Path })
	return d
}

// storeSources lists the stores of one data directory.
func storeSources(dir string) []string {
	dbs, _ := filepath.Glob(filepath.Join(dir, "opencode*.db"))
	if len(dbs) > 0 {
		return dbs
	}
	var out []string
	if storage := filepath.Join(dir, "storage"); isStorageDir(storage) {
		out = append(out, storage)
	}
	projects, _ := filepath.Glob(filepath.Join(dir, "project", "*", "storage"))
	for _, p := range projects {
		if isStorageDir(p) {
			out = append(out, p)
		}
	}
	return out
}

// sourceState returns a store's size and modification time as the
// indexer should compare them: a SQLite store's with its -wal, where
// OpenCode's newest rows are until a checkpoint; a storage tree's files'
// total size and the latest change of any file or directory in it.
func sourceState(path string) (int64, time.Time, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, time.Time{}, false
	}
	size, mod := fi.Size(), fi.ModTime()
	if fi.Mode().IsRegular() {
		if wal, err := os.Stat(path + "-wal"); err == nil {
			size += wal.Size()
			if wal.ModTime().After(mod) {
				mod = wal.ModTime()
			}
		}
		return size, mod, true
	}
	if !fi.IsDir() {
		return 0, time.Time{}, false
	}
	size = 0
	_ = filepath.WalkDir(path, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		if info.Mode().IsRegular() {
			size += info.Size()
		}
		if info.ModTime().After(mod) {
			mod = info.ModTime()
		}
		return nil
	})
	return size, mod, true
}

// expandHome replaces a leading ~ with home, as a shell would have.
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}
