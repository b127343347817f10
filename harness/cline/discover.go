package cline

import (
	"path/filepath"
	"sort"

	"github.com/deja-dev/deja/harness"
)

// The variables that move the Cline SDK's session store, most specific
// first: CLINE_SESSION_DATA_DIR is the sessions folder itself,
// CLINE_DATA_DIR holds sessions/, CLINE_DIR holds data/sessions/.
const (
	SessionDirEnv = "CLINE_SESSION_DATA_DIR"
	DataDirEnv    = "CLINE_DATA_DIR"
	HomeDirEnv    = "CLINE_DIR"
)

// hosts are the VS Code-family applications whose user data folders hold
// extension storage, as their folders are named.
var hosts = []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"}

// servers are the remote and Codespaces servers' data folders under home,
// each with User/globalStorage below it.
var servers = []string{
	".vscode-server/data", ".vscode-server-insiders/data", ".vscode-remote/data",
	".vscodium-server/data", ".cursor-server/data", ".windsurf-server/data",
}

// extensions are the extension folders of the family, each with tasks/.
var extensions = []string{clineExt, rooExt, kiloExt}

// Discover finds the family's histories: the Cline SDK's sessions
// (~/.cline/data/sessions/<id>/*.messages.json, or where SessionDirEnv,
// DataDirEnv or HomeDirEnv put them) and the task folders of Cline, Roo
// Code and Kilo Code (<extension>/tasks/<id>/api_conversation_history.json)
// in the globalStorage of VS Code, VS Code Insiders, VSCodium, Cursor and
// Windsurf on Linux ($XDG_CONFIG_HOME or ~/.config), macOS
// (~/Library/Application Support) and Windows (%APPDATA%), and of their
// remote servers. opts.Dirs (cline.dirs) replace all of these; each may be
// a sessions folder, a tasks folder, an extension folder, a globalStorage
// folder or a ~/.cline folder.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	if len(opts.Dirs) > 0 {
		for _, dir := range opts.Dirs {
			dir = harness.ExpandHome(dir, opts.Home)
			if !f.Place(dir, "cline.dirs") {
				continue
			}
			f.Installed()
			r := harness.Reason{Kind: "config", From: dir, Name: "cline.dirs"}
			for _, pat := range []string{
				filepath.Join("*", "*"+sdkSuffix),
				filepath.Join("sessions", "*", "*"+sdkSuffix),
				filepath.Join("data", "sessions", "*", "*"+sdkSuffix),
				filepath.Join("*", legacyFile),
				filepath.Join("tasks", "*", legacyFile),
				filepath.Join("*", "tasks", "*", legacyFile),
			} {
				addGlob(&f, filepath.Join(dir, pat), r)
			}
		}
		return f.Result()
	}
	sdk, why := sdkDir(opts)
	if sdk != "" && f.Place(sdk, why) {
		f.Installed()
		addGlob(&f, filepath.Join(sdk, "*", "*"+sdkSuffix), harness.Reason{Kind: reasonKind(why), From: sdk, Name: why})
	}
	for _, gs := range globalStorages(opts) {
		for _, ext := range extensions {
			dir := filepath.Join(gs, ext)
			if !f.Place(dir, "default") {
				continue
			}
			f.Installed()
			addGlob(&f, filepath.Join(dir, "tasks", "*", legacyFile), harness.Reason{Kind: "default", From: dir})
		}
	}
	return f.Result()
}

func reasonKind(why string) string {
	if why == "default" {
		return "default"
	}
	return "env"
}

// sdkDir is the SDK's sessions folder and what named it.
func sdkDir(opts harness.DiscoverOptions) (string, string) {
	abs := func(p string) string {
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
	if v := abs(opts.Env(SessionDirEnv)); v != "" {
		return v, SessionDirEnv
	}
	if v := abs(opts.Env(DataDirEnv)); v != "" {
		return filepath.Join(v, "sessions"), DataDirEnv
	}
	if v := abs(opts.Env(HomeDirEnv)); v != "" {
		return filepath.Join(v, "data", "sessions"), HomeDirEnv
	}
	if opts.Home == "" {
		return "", ""
	}
	return filepath.Join(opts.Home, ".cline", "data", "sessions"), "default"
}

// globalStorages lists the globalStorage folders that exist, in a fixed
// order: every host on every system's place, then the servers'.
func globalStorages(opts harness.DiscoverOptions) []string {
	var roots []string
	if x := opts.Env("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		roots = append(roots, x)
	}
	if v := opts.Env("APPDATA"); filepath.IsAbs(v) || isWindowsAbs(v) {
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
	add := func(p string) {
		if !seen[p] && isDir(p) {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, root := range roots {
		for _, h := range hosts {
			add(filepath.Join(root, h, "User", "globalStorage"))
		}
	}
	if opts.Home != "" {
		for _, s := range servers {
			add(filepath.Join(opts.Home, filepath.FromSlash(s), "User", "globalStorage"))
		}
	}
	return out
}

func addGlob(f *harness.Finder, pattern string, r harness.Reason) {
	matches, _ := filepath.Glob(pattern)
	sort.Strings(matches)
	for _, m := range matches {
		f.Add(m, r)
	}
}
