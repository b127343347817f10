package kiro

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
)

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
//   - the session files of the CLI's newer engines, ~/.kiro/sessions:
//     cli/<session_id>.jsonl (v2) and <workspace>/sess_<id>/messages.jsonl
//     (v3).
//
// A kiro.dirs folder may also be ~/.kiro or its sessions folder.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	for _, dir := range opts.Dirs {
		dir = harness.ExpandHome(dir, opts.Home)
		r := harness.Reason{Kind: "config", From: dir, Name: "kiro.dirs"}
		if f.Place(dir, r.Name) {
			lookData(&f, dir, r, true)
			lookUser(&f, dir, r, true)
			lookSessions(&f, dir, r)
			lookSessions(&f, filepath.Join(dir, sessionsRoot), r)
		}
	}
	// Each default place: its variable, else its folder under the home;
	// User folders end in Kiro/User, data folders do not.
	for _, d := range [...]string{"XDG_DATA_HOME .local/share", "XDG_CONFIG_HOME .config/Kiro/User", "- Library/Application Support",
		"- Library/Application Support/Kiro/User", "LOCALAPPDATA AppData/Local", "APPDATA AppData/Roaming/Kiro/User"} {
		if len(opts.Dirs) > 0 {
			break
		}
		env, rel, _ := strings.Cut(d, " ")
		user := strings.HasSuffix(rel, "/User")
		r := harness.Reason{Kind: "default", From: filepath.Join(opts.Home, filepath.FromSlash(rel)), Name: "~/" + rel}
		if v := opts.Env(env); filepath.IsAbs(v) {
			r.Kind, r.Name, r.From = "env", env, v
			if user {
				r.From = filepath.Join(v, "Kiro", "User")
			}
		} else if opts.Home == "" {
			continue
		}
		if user {
			if f.Place(r.From, r.String()) {
				f.Installed()
				lookUser(&f, r.From, r, false)
			}
		} else {
			lookData(&f, r.From, r, false)
		}
	}
	if opts.Home != "" && len(opts.Dirs) == 0 {
		dir := filepath.Join(opts.Home, ".kiro", sessionsRoot)
		if f.Place(dir, "~/.kiro/sessions") {
			lookSessions(&f, dir, harness.Reason{Kind: "default", From: dir, Name: "~/.kiro/sessions"})
		}
	}
	return f.Result()
}

// lookData adds the stores of a data folder: kiro-cli/data.sqlite3 and
// amazon-q/data.sqlite3, and data.sqlite3 itself for a kiro.dirs folder.
func lookData(f *harness.Finder, dir string, r harness.Reason, config bool) {
	for _, sub := range []string{"kiro-cli", "amazon-q", "."} {
		d := filepath.Join(dir, sub)
		if sub == "." && !config || !config && !f.Place(d, r.String()) {
			continue
		}
		if !config {
			f.Installed()
		}
		if p := filepath.Join(d, storeName); isFile(p) {
			f.Installed()
			f.Add(p, r)
		}
	}
}

// lookUser adds the IDE chats of a User folder, and for a kiro.dirs
// folder those of a kiro.kiroagent or workspace-sessions folder.
func lookUser(f *harness.Finder, dir string, r harness.Reason, config bool) {
	agents := []string{filepath.Join(dir, "globalStorage", extensionDir)}
	if config {
		agents = append(agents, dir)
	}
	for _, agent := range agents {
		executions(f, agent)
		found, _ := filepath.Glob(filepath.Join(agent, sessionsDir, "*", "*.json"))
		if agent == dir {
			more, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
			found = append(found, more...)
		}
		for _, p := range found {
			if _, ok := ideSessionID(p); ok && isFile(p) {
				f.Installed()
				f.Add(p, r)
			}
		}
	}
}

// lookSessions adds the session files of a sessions folder dir:
// cli/<uuid>.jsonl and <workspace>/<sess_id>/messages.jsonl.
func lookSessions(f *harness.Finder, dir string, r harness.Reason) {
	found, _ := filepath.Glob(filepath.Join(dir, cliDir, "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*", messagesName))
	for _, p := range append(found, more...) {
		if _, _, ok := sessionFile(p); ok && isFile(p) {
			f.Installed()
			f.Add(p, r)
		}
	}
}

// executions warns of the IDE's execution logs under its kiro.kiroagent
// folder dir, <32 hex digits>/<folder>/<file without extension>: each
// holds one agent run's full answers and tool calls, where a chat's
// session file keeps the prompts and a short answer ("On it."). Their
// shape is known only from one third-party reader, so deja counts them
// and says so rather than guess.
func executions(f *harness.Finder, dir string) {
	if n := count(filepath.Join(dir, strings.Repeat("[0-9a-f]", 32), "*", "*")); n > 0 {
		what, are := strconv.Itoa(n)+" agent executions", "are"
		if n == 1 {
			what, are = "1 agent execution", "is"
		}
		f.Warn("Kiro IDE: %s in %s (the full answers and tool calls of its chats) %s not read; deja reads the chats' prompts and the short answers their session files keep", what, dir, are)
	}
}

// count counts the regular files without an extension, or ending in
// .jsonl, that the patterns match.
func count(patterns ...string) int {
	n := 0
	for _, pattern := range patterns {
		found, _ := filepath.Glob(pattern)
		for _, p := range found {
			if ext := filepath.Ext(p); (ext == "" || ext == ".jsonl") && isFile(p) {
				n++
			}
		}
	}
	return n
}

// isFile reports a regular file (or a link to one).
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
