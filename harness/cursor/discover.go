package cursor

import (
	"path/filepath"

	"github.com/deja-dev/deja/harness"
)

// ConfigEnv moves Cursor's ~/.cursor directory, where agent transcripts
// are kept.
const ConfigEnv = "CURSOR_CONFIG_DIR"

// Discover finds Cursor's histories: the IDE's stores in each of its User
// directories (~/.config/Cursor/User or $XDG_CONFIG_HOME/Cursor/User on
// Linux, ~/Library/Application Support/Cursor/User on macOS,
// %APPDATA%\Cursor\User on Windows): globalStorage/state.vscdb and
// workspaceStorage/<hash>/state.vscdb; and under ~/.cursor (or
// $CURSOR_CONFIG_DIR) the agent transcripts,
// projects/<slug>/agent-transcripts, and the cursor-agent CLI's chats,
// chats/<md5 of the cwd>/<agentId>/store.db, and its prompt history,
// prompt_history.json.
// Every place is looked at whatever the system: a place that is not there
// is skipped. The cursor.dirs setting replaces them all; each of its
// directories is read as a User directory and as a ~/.cursor directory,
// so it can name a VS Code-family install that keeps Cursor's stores.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct {
		dir    string
		reason harness.Reason
	}
	var users, configs []place
	if len(opts.Dirs) > 0 {
		for _, dir := range opts.Dirs {
			dir = harness.ExpandHome(dir, opts.Home)
			r := harness.Reason{Kind: "config", From: dir, Name: "cursor.dirs"}
			users = append(users, place{dir, r})
			configs = append(configs, place{dir, r})
		}
	} else {
		if x := opts.Env("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
			dir := filepath.Join(x, "Cursor", "User")
			users = append(users, place{dir, harness.Reason{Kind: "env", From: dir, Name: "XDG_CONFIG_HOME"}})
		} else if opts.Home != "" {
			dir := filepath.Join(opts.Home, ".config", "Cursor", "User")
			users = append(users, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.config/Cursor/User"}})
		}
		if opts.Home != "" {
			dir := filepath.Join(opts.Home, "Library", "Application Support", "Cursor", "User")
			users = append(users, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/Library/Application Support/Cursor/User"}})
		}
		if a := opts.Env("APPDATA"); filepath.IsAbs(a) {
			dir := filepath.Join(a, "Cursor", "User")
			users = append(users, place{dir, harness.Reason{Kind: "env", From: dir, Name: "APPDATA"}})
		} else if opts.Home != "" {
			dir := filepath.Join(opts.Home, "AppData", "Roaming", "Cursor", "User")
			users = append(users, place{dir, harness.Reason{Kind: "default", From: dir, Name: `~\AppData\Roaming\Cursor\User`}})
		}
		if c := opts.Env(ConfigEnv); c != "" {
			dir := harness.ExpandHome(c, opts.Home)
			if !filepath.IsAbs(dir) && opts.WorkDir != "" {
				dir = filepath.Join(opts.WorkDir, dir)
			}
			configs = append(configs, place{dir, harness.Reason{Kind: "env", From: dir, Name: ConfigEnv}})
		} else if opts.Home != "" {
			dir := filepath.Join(opts.Home, ".cursor")
			configs = append(configs, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.cursor"}})
		}
	}
	for _, pl := range users {
		if len(opts.Dirs) == 0 && !f.Place(pl.dir, pl.reason.String()) {
			continue
		}
		stores := []string{filepath.Join(pl.dir, "globalStorage", storeName)}
		ws, _ := filepath.Glob(filepath.Join(pl.dir, "workspaceStorage", "*", storeName))
		stores = append(stores, ws...)
		for _, p := range stores {
			if isFile(p) {
				f.Installed()
				f.Add(p, pl.reason)
			}
		}
	}
	for _, pl := range configs {
		if !f.Place(pl.dir, pl.reason.String()) {
			continue
		}
		if len(opts.Dirs) == 0 {
			f.Installed()
		}
		f.AddPromptHistory(filepath.Join(pl.dir, historyName), pl.reason)
		for _, pattern := range []string{
			filepath.Join(pl.dir, "projects", "*", transcriptsDir, "*.jsonl"),
			filepath.Join(pl.dir, "projects", "*", transcriptsDir, "*", "*.jsonl"),
			filepath.Join(pl.dir, "projects", "*", transcriptsDir, "*", "subagents", "*.jsonl"),
			filepath.Join(pl.dir, "chats", "*", "*", agentStoreName),
		} {
			found, _ := filepath.Glob(pattern)
			for _, p := range found {
				if _, _, ok := transcriptIDs(p); ok || isAgentStore(p) {
					f.Installed()
					f.Add(p, pl.reason)
				}
			}
		}
	}
	return f.Result()
}
