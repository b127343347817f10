package qwen

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// RuntimeEnv is the variable that moves Qwen Code's runtime output, its
// chats among it, out of ~/.qwen (Storage.getRuntimeBaseDir in
// packages/core/src/config/storage.ts).
const RuntimeEnv = "QWEN_RUNTIME_DIR"

// Discover finds the chat files under each projects folder: the qwen.dirs
// configuration when set (each a runtime folder holding projects/, or a
// projects folder), else $QWEN_RUNTIME_DIR/projects and ~/.qwen/projects,
// the same on Linux, macOS and Windows (the CLI joins the home directory
// and .qwen on every system). Chats written before the variable was set
// stay in ~/.qwen, so both are searched. In each project folder it takes
// chats/<sessionId>.jsonl and the subagent transcripts
// subagents/<sessionId>/agent-<agentId>.jsonl; it reads no other file
// there or in ~/.qwen (settings.json and oauth_creds.json hold keys).
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct {
		dir    string
		reason harness.Reason
		root   string
	}
	var places []place
	if len(opts.Dirs) > 0 {
		for _, d := range opts.Dirs {
			d = harness.ExpandHome(d, opts.Home)
			dir := d
			if info, err := os.Stat(filepath.Join(d, "projects")); err == nil && info.IsDir() {
				dir = filepath.Join(d, "projects")
			}
			places = append(places, place{dir, harness.Reason{Kind: "config", From: dir, Name: "qwen.dirs"}, ""})
		}
	} else {
		if env := opts.Env(RuntimeEnv); env != "" {
			root := harness.ExpandHome(env, opts.Home)
			if !filepath.IsAbs(root) && opts.WorkDir != "" {
				root = filepath.Join(opts.WorkDir, root)
			}
			dir := filepath.Join(root, "projects")
			places = append(places, place{dir, harness.Reason{Kind: "env", From: dir, Name: RuntimeEnv}, root})
		}
		if opts.Home != "" {
			root := filepath.Join(opts.Home, ".qwen")
			dir := filepath.Join(root, "projects")
			places = append(places, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.qwen/projects"}, root})
		}
	}
	for _, pl := range places {
		if pl.root != "" {
			if info, err := os.Stat(pl.root); err == nil && info.IsDir() {
				f.Installed()
			}
		}
		if !f.Place(pl.dir, pl.reason.Name) {
			continue
		}
		f.Installed()
		projects, err := os.ReadDir(pl.dir)
		if err != nil {
			f.Warn("cannot read %s: %v", pl.dir, err)
		}
		for _, p := range projects {
			if p.IsDir() {
				findChats(&f, filepath.Join(pl.dir, p.Name()), pl.reason)
			}
		}
	}
	return f.Result()
}

// findChats adds one project folder's chats and subagent transcripts.
func findChats(f *harness.Finder, project string, r harness.Reason) {
	chats := filepath.Join(project, "chats")
	entries, _ := os.ReadDir(chats)
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			f.Add(filepath.Join(chats, e.Name()), r)
		}
	}
	sessions, _ := os.ReadDir(filepath.Join(project, "subagents"))
	for _, s := range sessions {
		if !s.IsDir() {
			continue
		}
		dir := filepath.Join(project, "subagents", s.Name())
		agents, _ := os.ReadDir(dir)
		for _, a := range agents {
			if name := a.Name(); !a.IsDir() && strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl") {
				f.Add(filepath.Join(dir, name), r)
			}
		}
	}
}
