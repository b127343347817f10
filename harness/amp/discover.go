package amp

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// DataHomeEnv is the XDG variable Amp's data folder follows: threads are
// in $XDG_DATA_HOME/amp/threads, else ~/.local/share/amp/threads, on
// Linux, macOS and Windows alike (Amp takes the XDG layout on every
// system; the Windows default is inferred, not observed).
const DataHomeEnv = "XDG_DATA_HOME"

// hosts are the VS Code-family applications whose globalStorage held the
// extension's threads before they moved to the shared data folder.
var hosts = []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"}

// legacyDir is the extension's thread folder below a globalStorage.
var legacyDir = filepath.Join("sourcegraph.amp", "threads3")

// Discover finds the thread files, T-<uuid>.json: in amp.dirs when set
// (each a threads folder, or a folder holding threads/), else in
// $XDG_DATA_HOME/amp/threads, ~/.local/share/amp/threads, and the
// extension's older folders, <editor>/User/globalStorage/sourcegraph.amp/
// threads3, under ~/.config (or $XDG_CONFIG_HOME), ~/Library/Application
// Support and %APPDATA%. Nothing else of Amp's is opened: its settings
// and secrets live in ~/.config/amp.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	look := func(dir string, r harness.Reason) {
		if !f.Place(dir, r.String()) {
			return
		}
		f.Installed()
		entries, err := os.ReadDir(dir)
		if err != nil {
			f.Warn("cannot read %s: %v", dir, err)
		}
		var names []string
		for _, e := range entries {
			if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".json") && validThreadID(strings.TrimSuffix(n, ".json")) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			f.Add(filepath.Join(dir, n), r)
		}
	}
	if len(opts.Dirs) > 0 {
		for _, d := range opts.Dirs {
			d = harness.ExpandHome(d, opts.Home)
			if isDir(filepath.Join(d, "threads")) {
				d = filepath.Join(d, "threads")
			}
			look(d, harness.Reason{Kind: "config", From: d, Name: "amp.dirs"})
		}
		return f.Result()
	}
	if x := absolute(opts.Env(DataHomeEnv), opts); x != "" {
		dir := filepath.Join(x, "amp", "threads")
		look(dir, harness.Reason{Kind: "env", From: dir, Name: DataHomeEnv})
	}
	if opts.Home != "" {
		dir := filepath.Join(opts.Home, ".local", "share", "amp", "threads")
		look(dir, harness.Reason{Kind: "default", From: dir, Name: "~/.local/share/amp/threads"})
	}
	for _, gs := range globalStorages(opts) {
		dir := filepath.Join(gs, legacyDir)
		if isDir(dir) {
			look(dir, harness.Reason{Kind: "default", From: dir})
		}
	}
	return f.Result()
}

// absolute is p with ~ expanded and, when relative, taken from WorkDir;
// "" when it cannot be made absolute.
func absolute(p string, opts harness.DiscoverOptions) string {
	if p == "" {
		return ""
	}
	p = harness.ExpandHome(p, opts.Home)
	if !filepath.IsAbs(p) && opts.WorkDir != "" {
		p = filepath.Join(opts.WorkDir, p)
	}
	if !filepath.IsAbs(p) {
		return ""
	}
	return p
}

// globalStorages lists the editors' globalStorage folders that exist, in
// a fixed order and each once.
func globalStorages(opts harness.DiscoverOptions) []string {
	var roots []string
	if x := absolute(opts.Env("XDG_CONFIG_HOME"), opts); x != "" {
		roots = append(roots, x)
	}
	if v := opts.Env("APPDATA"); filepath.IsAbs(v) {
		roots = append(roots, v)
	}
	if opts.Home != "" {
		roots = append(roots,
			filepath.Join(opts.Home, ".config"),
			filepath.Join(opts.Home, "Library", "Application Support"),
			filepath.Join(opts.Home, "AppData", "Roaming"))
	}
	var out []string
	seen := map[string]bool{}
	for _, root := range roots {
		for _, h := range hosts {
			if p := filepath.Join(root, h, "User", "globalStorage"); !seen[p] && isDir(p) {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
