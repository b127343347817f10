package kiro

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// place is a folder discovery looks in, and why.
type place struct {
	dir    string
	reason harness.Reason
}

// Discover finds Kiro's histories, every place whatever the system (one
// that is not there is skipped):
//
//   - the CLI's data.sqlite3 in kiro-cli/ and, from before the rename,
//     amazon-q/, under the data folder: $XDG_DATA_HOME or ~/.local/share
//     on Linux, ~/Library/Application Support on macOS, %LOCALAPPDATA%
//     (~\AppData\Local) on Windows;
//   - the IDE's chats under its User folder ($XDG_CONFIG_HOME/Kiro/User or
//     ~/.config/Kiro/User, ~/Library/Application Support/Kiro/User,
//     %APPDATA%\Kiro\User): globalStorage/kiro.kiroagent/
//     workspace-sessions/<workspace>/<sessionId>.json.
//
// The kiro.dirs setting replaces them; each of its folders may hold
// data.sqlite3 or kiro-cli/ and amazon-q/, or be a User folder, or a
// kiro.kiroagent or workspace-sessions folder.
//
// The session files of the CLI's newer engines, ~/.kiro/sessions, are
// counted and named in a warning: deja does not read them yet.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	var data, users []place
	if len(opts.Dirs) > 0 {
		for _, dir := range opts.Dirs {
			dir = harness.ExpandHome(dir, opts.Home)
			r := harness.Reason{Kind: "config", From: dir, Name: "kiro.dirs"}
			data = append(data, place{dir, r})
			users = append(users, place{dir, r})
		}
	} else {
		home := func(parts ...string) string { return filepath.Join(append([]string{opts.Home}, parts...)...) }
		envOr := func(list *[]place, env string, sub []string, def []string, name string) {
			if v := opts.Env(env); filepath.IsAbs(v) {
				dir := filepath.Join(append([]string{v}, sub...)...)
				*list = append(*list, place{dir, harness.Reason{Kind: "env", From: dir, Name: env}})
			} else if opts.Home != "" {
				dir := home(append(def, sub...)...)
				*list = append(*list, place{dir, harness.Reason{Kind: "default", From: dir, Name: name}})
			}
		}
		envOr(&data, "XDG_DATA_HOME", nil, []string{".local", "share"}, "~/.local/share")
		envOr(&users, "XDG_CONFIG_HOME", []string{"Kiro", "User"}, []string{".config"}, "~/.config/Kiro/User")
		if opts.Home != "" {
			data = append(data, place{home("Library", "Application Support"), harness.Reason{Kind: "default", From: home("Library", "Application Support"), Name: "~/Library/Application Support"}})
			users = append(users, place{home("Library", "Application Support", "Kiro", "User"), harness.Reason{Kind: "default", From: home("Library", "Application Support", "Kiro", "User"), Name: "~/Library/Application Support/Kiro/User"}})
		}
		envOr(&data, "LOCALAPPDATA", nil, []string{"AppData", "Local"}, `~\AppData\Local`)
		envOr(&users, "APPDATA", []string{"Kiro", "User"}, []string{"AppData", "Roaming"}, `~\AppData\Roaming\Kiro\User`)
	}
	config := len(opts.Dirs) > 0
	for _, pl := range data {
		dirs := []string{filepath.Join(pl.dir, "kiro-cli"), filepath.Join(pl.dir, "amazon-q")}
		if config {
			dirs = append([]string{pl.dir}, dirs...)
		}
		for _, dir := range dirs {
			if !config {
				if !f.Place(dir, pl.reason.String()) {
					continue
				}
				f.Installed()
			}
			if p := filepath.Join(dir, storeName); isFile(p) {
				f.Installed()
				f.Add(p, pl.reason)
			}
		}
	}
	for _, pl := range users {
		if !f.Place(pl.dir, pl.reason.String()) {
			continue
		}
		if !config {
			f.Installed()
		}
		agents := []string{filepath.Join(pl.dir, "globalStorage", extensionDir)}
		if config {
			agents = append(agents, pl.dir)
		}
		var roots []string
		for _, agent := range agents {
			executions(&f, agent)
			roots = append(roots, filepath.Join(agent, sessionsDir))
		}
		if config {
			roots = append(roots, pl.dir)
		}
		for _, root := range roots {
			found, _ := filepath.Glob(filepath.Join(root, "*", "*.json"))
			for _, p := range found {
				if _, ok := ideSessionID(p); ok && isFile(p) {
					f.Installed()
					f.Add(p, pl.reason)
				}
			}
		}
	}
	if opts.Home != "" && !config {
		newerSessions(&f, filepath.Join(opts.Home, ".kiro", "sessions"))
	}
	return f.Result()
}

// newerSessions warns of the session files of the Kiro CLI's v2 and v3
// engines under dir (cli/<id>.jsonl, <workspace>/sess_<id>/messages.jsonl),
// which deja does not read.
func newerSessions(f *harness.Finder, dir string) {
	v2, _ := filepath.Glob(filepath.Join(dir, "cli", "*.jsonl"))
	v3, _ := filepath.Glob(filepath.Join(dir, "*", "sess_*", "messages.jsonl"))
	if n := len(v2) + len(v3); n > 0 {
		f.Place(dir, "~/.kiro/sessions")
		f.Warn("%d Kiro CLI sessions in %s are in the session-file format of its newer agent engines, which deja does not read yet (it reads the conversations of the CLI's data.sqlite3 and the chats of the Kiro IDE)", n, dir)
	}
}

// executions warns of the IDE's execution logs under its kiro.kiroagent
// folder dir, <32 hex digits>/<folder>/<file without extension>: each
// holds one agent run's full answers and tool calls, where a chat's
// session file keeps the prompts and a short answer ("On it."). Their
// shape is known only from one third-party reader, so deja counts them
// and says so rather than guess.
func executions(f *harness.Finder, dir string) {
	logs, _ := filepath.Glob(filepath.Join(dir, strings.Repeat("[0-9a-f]", 32), "*", "*"))
	n := 0
	for _, p := range logs {
		if filepath.Ext(p) == "" && isFile(p) {
			n++
		}
	}
	if n > 0 {
		f.Warn("Kiro IDE: %d agent executions in %s (the full answers and tool calls of its chats) are not read; deja reads the chats' prompts and the short answers their session files keep", n, dir)
	}
}

// isFile reports a regular file (or a link to one).
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
