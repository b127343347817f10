package zed

import (
	"os"
	"path/filepath"

	"github.com/deja-dev/deja/harness"
)

// The variables that move Zed's data directory (data_dir in
// crates/paths/src/paths.rs): a Flatpak build's FLATPAK_XDG_DATA_HOME,
// else XDG_DATA_HOME (through dirs::data_local_dir) on Linux and FreeBSD;
// LOCALAPPDATA on Windows. macOS has none.
const (
	FlatpakDataEnv = "FLATPAK_XDG_DATA_HOME"
	DataHomeEnv    = "XDG_DATA_HOME"
	LocalAppEnv    = "LOCALAPPDATA"
)

// flatpakData is the data directory a Flatpak build of Zed (app id
// dev.zed.Zed) is given, as its FLATPAK_XDG_DATA_HOME, seen from outside
// the sandbox.
const flatpakData = ".var/app/dev.zed.Zed/data"

// Discover finds Zed's thread store, threads/threads.db in Zed's data
// directory: $XDG_DATA_HOME/zed (else ~/.local/share/zed) on Linux,
// ~/.var/app/dev.zed.Zed/data/zed for the Flatpak build (or
// $FLATPAK_XDG_DATA_HOME/zed when deja runs inside it), ~/Library/
// Application Support/Zed on macOS and %LOCALAPPDATA%\Zed on Windows,
// each looked at whatever the system. The zed.dirs setting replaces them:
// each of its directories is read as a data directory (holding
// threads/threads.db) or the threads directory itself. Zed's
// --user-data-dir flag moves the data directory with nothing deja can
// see: point zed.dirs at it.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	if len(opts.Dirs) > 0 {
		for _, dir := range opts.Dirs {
			dir = harness.ExpandHome(dir, opts.Home)
			if !filepath.IsAbs(dir) && opts.WorkDir != "" {
				dir = filepath.Join(opts.WorkDir, dir)
			}
			r := harness.Reason{Kind: "config", From: dir, Name: "zed.dirs"}
			if !f.Place(dir, r.String()) {
				continue
			}
			for _, p := range []string{filepath.Join(dir, storeName), filepath.Join(dir, "threads", storeName)} {
				if isFile(p) {
					f.Installed()
					f.Add(p, r)
				}
			}
		}
		return f.Result()
	}
	for _, r := range dataDirs(opts) {
		threads := filepath.Join(r.From, "threads")
		if !f.Place(threads, r.String()) {
			continue
		}
		f.Installed()
		if p := filepath.Join(threads, storeName); isFile(p) {
			f.Add(p, r)
		}
	}
	return f.Result()
}

// dataDirs are the places of Zed's data directory, each as the reason
// that names it.
func dataDirs(opts harness.DiscoverOptions) []harness.Reason {
	var out []harness.Reason
	env := func(name, sub string) bool {
		if v := opts.Env(name); filepath.IsAbs(v) {
			// The XDG spec ignores a relative value; so does deja.
			out = append(out, harness.Reason{Kind: "env", From: filepath.Join(v, sub), Name: name})
			return true
		}
		return false
	}
	home := func(rel, name string) {
		if opts.Home != "" {
			out = append(out, harness.Reason{Kind: "default", From: filepath.Join(opts.Home, filepath.FromSlash(rel)), Name: name})
		}
	}
	if !env(FlatpakDataEnv, "zed") && !env(DataHomeEnv, "zed") {
		home(".local/share/zed", "~/.local/share/zed")
	}
	home(flatpakData+"/zed", "~/"+flatpakData+"/zed")
	home("Library/Application Support/Zed", "~/Library/Application Support/Zed")
	if !env(LocalAppEnv, "Zed") {
		home("AppData/Local/Zed", `~\AppData\Local\Zed`)
	}
	return out
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
