package zed

import (
	"os"
	"path/filepath"

	"github.com/deja-dev/deja/harness"
)

// The variables that move Zed's data directory (data_dir in
// crates/paths/src/paths.rs): XDG_DATA_HOME (through
// dirs::data_local_dir) on Linux and FreeBSD, LOCALAPPDATA on Windows;
// macOS has none. A Flatpak build's FLATPAK_XDG_DATA_HOME is set only
// inside its sandbox, where deja does not run; its place outside is
// looked at instead.
const (
	DataHomeEnv = "XDG_DATA_HOME"
	LocalAppEnv = "LOCALAPPDATA"
)

// Discover finds Zed's thread store, threads/threads.db in Zed's data
// directory: $XDG_DATA_HOME/zed (else ~/.local/share/zed) on Linux,
// ~/.var/app/dev.zed.Zed/data/zed for the Flatpak build, ~/Library/
// Application Support/Zed on macOS and %LOCALAPPDATA%\Zed on Windows,
// each looked at whatever the system. The zed.dirs setting replaces them:
// each of its directories is read as a data directory (holding
// threads/threads.db) or the threads directory itself. Zed's
// --user-data-dir flag moves the data directory with nothing deja can
// see: point zed.dirs at it.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	for _, r := range dataDirs(opts) {
		if !f.Place(r.From, r.String()) {
			continue
		}
		for _, p := range [2]string{filepath.Join(r.From, "threads", storeName), filepath.Join(r.From, storeName)} {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				f.Installed()
				f.Add(p, r)
			}
		}
	}
	return f.Result()
}

// dataDirs are the places of Zed's data directory, each as the reason
// that names it: zed.dirs's, else every default, or the variable (when
// absolute, as the XDG spec asks) that moves it.
func dataDirs(opts harness.DiscoverOptions) []harness.Reason {
	var out []harness.Reason
	for _, dir := range opts.Dirs {
		dir = harness.ExpandHome(dir, opts.Home)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(opts.WorkDir, dir)
		}
		out = append(out, harness.Reason{Kind: "config", From: dir, Name: "zed.dirs"})
	}
	if len(out) > 0 {
		return out
	}
	for _, d := range [...][3]string{
		{".local/share/zed", "~/.local/share/zed", DataHomeEnv},
		{".var/app/dev.zed.Zed/data/zed", "~/.var/app/dev.zed.Zed/data/zed"},
		{"Library/Application Support/Zed", "~/Library/Application Support/Zed"},
		{"AppData/Local/Zed", `~\AppData\Local\Zed`, LocalAppEnv},
	} {
		r := harness.Reason{Kind: "default", From: filepath.Join(opts.Home, filepath.FromSlash(d[0])), Name: d[1]}
		if v := opts.Env(d[2]); d[2] != "" && filepath.IsAbs(v) {
			r = harness.Reason{Kind: "env", From: filepath.Join(v, filepath.Base(d[0])), Name: d[2]}
		} else if opts.Home == "" {
			continue
		}
		out = append(out, r)
	}
	return out
}
