package copilot

import (
	"os"
	"path/filepath"

	"github.com/deja-dev/deja/harness"
)

// HomeEnv is the variable that moves Copilot CLI's directory: its session
// state lives in $COPILOT_HOME/session-state instead of
// ~/.copilot/session-state (see doc.go for the sources).
const HomeEnv = "COPILOT_HOME"

// Discover finds the sessions' events files: <place>/<sessionId>/events.jsonl
// under the copilot.dirs configuration when set (each a Copilot directory or
// its session-state directory), else under $COPILOT_HOME/session-state, else
// ~/.copilot/session-state (%USERPROFILE%\.copilot on Windows, which is the
// home there). A session directory without events.jsonl (many hold only
// workspace.yaml) has nothing to read. Beside session-state it takes the
// prompt history, command-history-state.json.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct{ dir, why, kind string }
	var places []place
	switch {
	case len(opts.Dirs) > 0:
		for _, d := range opts.Dirs {
			dir := harness.ExpandHome(d, opts.Home)
			if fi, err := os.Stat(filepath.Join(dir, "session-state")); err == nil && fi.IsDir() {
				dir = filepath.Join(dir, "session-state")
			}
			f.AddPromptHistory(filepath.Join(filepath.Dir(dir), historyName), harness.Reason{Kind: "config", From: filepath.Dir(dir), Name: "copilot.dirs"})
			places = append(places, place{dir, "copilot.dirs", "config"})
		}
	case opts.Env(HomeEnv) != "":
		root := harness.ExpandHome(opts.Env(HomeEnv), opts.Home)
		places = append(places, place{filepath.Join(root, "session-state"), HomeEnv, "env"})
		f.AddPromptHistory(filepath.Join(root, historyName), harness.Reason{Kind: "env", From: root, Name: HomeEnv})
		markInstalled(&f, root)
	case opts.Home != "":
		root := filepath.Join(opts.Home, ".copilot")
		places = append(places, place{filepath.Join(root, "session-state"), "~/.copilot/session-state", "default"})
		f.AddPromptHistory(filepath.Join(root, historyName), harness.Reason{Kind: "default", From: root, Name: "~/.copilot/" + historyName})
		markInstalled(&f, root)
	}
	for _, pl := range places {
		if !f.Place(pl.dir, pl.why) {
			continue
		}
		f.Installed()
		r := harness.Reason{Kind: pl.kind, From: pl.dir, Name: pl.why}
		sessions, err := os.ReadDir(pl.dir)
		if err != nil {
			f.Warn("cannot read %s: %v", pl.dir, err)
		}
		for _, s := range sessions {
			if !s.IsDir() {
				continue
			}
			p := filepath.Join(pl.dir, s.Name(), "events.jsonl")
			if _, err := os.Lstat(p); err == nil {
				f.Add(p, r)
			}
		}
	}
	return f.Result()
}

// markInstalled notes that Copilot CLI has run here: its own directory
// exists even when no session is left.
func markInstalled(f *harness.Finder, root string) {
	if info, err := os.Stat(root); err == nil && info.IsDir() {
		f.Installed()
	}
}
