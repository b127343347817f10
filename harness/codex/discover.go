package codex

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// walkDepth is how deep Discover looks under a place: sessions/YYYY/MM/DD.
const walkDepth = 4

// Discover finds the rollouts under $CODEX_HOME (else ~/.codex): in
// sessions/ (dated folders) and archived_sessions/; the codex.dirs
// configuration, when set, replaces both with its directories. The prompt
// history, history.jsonl, is taken from $CODEX_HOME or a codex.dirs
// directory. A
// rollout-*.jsonl.zst is skipped when its plain .jsonl is beside it, as
// Codex itself prefers the plain file (§2.1).
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct{ dir, why, kind string }
	var places []place
	switch {
	case len(opts.Dirs) > 0:
		for _, d := range opts.Dirs {
			dir := harness.ExpandHome(d, opts.Home)
			places = append(places, place{dir, "codex.dirs", "config"})
			f.AddPromptHistory(filepath.Join(dir, historyName), harness.Reason{Kind: "config", From: dir, Name: "codex.dirs"})
		}
	default:
		home, why, kind := opts.Env("CODEX_HOME"), "CODEX_HOME", "env"
		if home == "" && opts.Home != "" {
			home, why, kind = filepath.Join(opts.Home, ".codex"), "default", "default"
		}
		if home == "" {
			break
		}
		home = harness.ExpandHome(home, opts.Home)
		if info, err := os.Stat(home); err == nil && info.IsDir() {
			f.Installed()
		}
		places = append(places, place{filepath.Join(home, "sessions"), why, kind}, place{filepath.Join(home, "archived_sessions"), why, kind})
		name := why
		if kind == "default" {
			name = "~/.codex/" + historyName
		}
		f.AddPromptHistory(filepath.Join(home, historyName), harness.Reason{Kind: kind, From: home, Name: name})
	}
	for _, pl := range places {
		if !f.Place(pl.dir, pl.why) {
			continue
		}
		name := pl.why
		if pl.kind == "default" {
			name = "~/.codex/" + filepath.Base(pl.dir)
		}
		walk(&f, pl.dir, harness.Reason{Kind: pl.kind, From: pl.dir, Name: name}, 0)
	}
	return f.Result()
}

func walk(f *harness.Finder, dir string, r harness.Reason, depth int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Warn("cannot read %s: %v", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case e.IsDir():
			if depth < walkDepth && !strings.HasPrefix(name, ".") {
				walk(f, p, r, depth+1)
			}
		case !strings.HasPrefix(name, "rollout-"):
		case strings.HasSuffix(name, ".jsonl"):
			f.Add(p, r)
		case strings.HasSuffix(name, ".json"):
			// The first generation's single object (§2.2), unless a
			// newer rollout of the same name is beside it.
			if _, err := os.Stat(p + "l"); err != nil {
				f.Add(p, r)
			}
		case strings.HasSuffix(name, ".jsonl.zst"):
			if _, err := os.Stat(strings.TrimSuffix(p, ".zst")); err != nil {
				f.Add(p, r)
			}
		}
	}
}
