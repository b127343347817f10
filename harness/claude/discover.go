package claude

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Discover finds the transcripts under each projects directory: the
// claude.dirs configuration when set, else $CLAUDE_CONFIG_DIR/projects, else
// ~/.claude/projects. In each project folder it takes <sessionId>.jsonl,
// the older agent-<id>.jsonl subagent files beside them, and the newer
// <sessionId>/subagents/agent-<id>.jsonl (§1.1). Beside each projects
// directory it takes the prompt history, history.jsonl.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct{ dir, why, kind string }
	var places []place
	switch {
	case len(opts.Dirs) > 0:
		for _, d := range opts.Dirs {
			places = append(places, place{harness.ExpandHome(d, opts.Home), "claude.dirs", "config"})
		}
	case opts.Env("CLAUDE_CONFIG_DIR") != "":
		root := harness.ExpandHome(opts.Env("CLAUDE_CONFIG_DIR"), opts.Home)
		places = append(places, place{filepath.Join(root, "projects"), "CLAUDE_CONFIG_DIR", "env"})
		markInstalled(&f, root)
	case opts.Home != "":
		root := filepath.Join(opts.Home, ".claude")
		places = append(places, place{filepath.Join(root, "projects"), "default", "default"})
		markInstalled(&f, root)
	}
	for _, pl := range places {
		addPromptHistory(&f, pl.dir, pl.why, pl.kind)
		if !f.Place(pl.dir, pl.why) {
			continue
		}
		f.Installed()
		r := harness.Reason{Kind: pl.kind, From: pl.dir, Name: pl.why}
		if pl.kind == "default" {
			r.Name = "~/.claude/projects"
		}
		projects, err := os.ReadDir(pl.dir)
		if err != nil {
			f.Warn("cannot read %s: %v", pl.dir, err)
		}
		for _, p := range projects {
			if p.IsDir() {
				findTranscripts(&f, filepath.Join(pl.dir, p.Name()), r)
			}
		}
	}
	return f.Result()
}

// markInstalled notes that Claude Code has run here: its own directory
// exists even when no transcript is left.
func markInstalled(f *harness.Finder, root string) {
	if info, err := os.Stat(root); err == nil && info.IsDir() {
		f.Installed()
	}
}

// findTranscripts adds one project folder's transcripts and subagents.
func findTranscripts(f *harness.Finder, dir string, r harness.Reason) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Warn("cannot read %s: %v", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir() && harness.IsUUID(name):
			sub := filepath.Join(dir, name, "subagents")
			agents, _ := os.ReadDir(sub)
			for _, a := range agents {
				if !a.IsDir() && strings.HasSuffix(a.Name(), ".jsonl") {
					f.Add(filepath.Join(sub, a.Name()), r)
				}
			}
		case !e.IsDir() && strings.HasSuffix(name, ".jsonl"):
			f.Add(filepath.Join(dir, name), r)
		}
	}
}

// addPromptHistory adds the history.jsonl beside a projects directory
// (in a claude.dirs directory itself, too).
func addPromptHistory(f *harness.Finder, dir, why, kind string) {
	paths := []string{filepath.Join(filepath.Dir(dir), historyName)}
	if kind == "config" {
		paths = append(paths, filepath.Join(dir, historyName))
	}
	name := why
	if kind == "default" {
		name = "~/.claude/" + historyName
	}
	for _, p := range paths {
		f.AddPromptHistory(p, harness.Reason{Kind: kind, From: filepath.Dir(p), Name: name})
	}
}
