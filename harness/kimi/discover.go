package kimi

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// The variables that move each product's data folder: kimi-cli's
// get_share_dir (src/kimi_cli/share.py) and Kimi Code's KIMI_CODE_HOME
// (docs/en/configuration/data-locations.md).
const (
	ShareEnv = "KIMI_SHARE_DIR"
	HomeEnv  = "KIMI_CODE_HOME"
)

// Discover finds the session files under each data folder: the kimi.dirs
// configuration when set (each a data folder holding sessions/, or a
// sessions folder), else $KIMI_SHARE_DIR and ~/.kimi (kimi-cli) and
// $KIMI_CODE_HOME and ~/.kimi-code (Kimi Code), the same on Linux, macOS
// and Windows (both join the home directory and the folder's name on
// every system). Sessions written before a variable was set stay in the
// home folder, so both are searched.
//
// In each session folder it takes Kimi Code's agents/<agent>/wire.jsonl;
// kimi-cli's wire.jsonl and subagents/<agentId>/wire.jsonl, or, in a
// session older than the wire log, context.jsonl and context_sub_<n>.jsonl
// (a wire log holds what its context files hold, and more); and a bucket's
// <uuid>.jsonl, the context file of a session from before session
// folders. It opens nothing else there: credentials/ holds keys.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type root struct {
		dir    string
		reason harness.Reason
	}
	var roots []root
	if len(opts.Dirs) > 0 {
		for _, d := range opts.Dirs {
			d = harness.ExpandHome(d, opts.Home)
			if filepath.Base(d) != "sessions" {
				if info, err := os.Stat(filepath.Join(d, "sessions")); err == nil && info.IsDir() {
					d = filepath.Join(d, "sessions")
				}
			}
			roots = append(roots, root{d, harness.Reason{Kind: "config", From: d, Name: "kimi.dirs"}})
		}
	} else {
		for _, env := range []string{ShareEnv, HomeEnv} {
			v := opts.Env(env)
			if v == "" {
				continue
			}
			dir := harness.ExpandHome(v, opts.Home)
			if !filepath.IsAbs(dir) && opts.WorkDir != "" {
				dir = filepath.Join(opts.WorkDir, dir)
			}
			roots = append(roots, root{filepath.Join(dir, "sessions"), harness.Reason{Kind: "env", From: dir, Name: env}})
		}
		if opts.Home != "" {
			for _, name := range []string{".kimi", ".kimi-code"} {
				dir := filepath.Join(opts.Home, name)
				roots = append(roots, root{filepath.Join(dir, "sessions"), harness.Reason{Kind: "default", From: dir, Name: "~/" + name + "/sessions"}})
			}
		}
	}
	for _, r := range roots {
		if info, err := os.Stat(filepath.Dir(r.dir)); err == nil && info.IsDir() && filepath.Base(r.dir) == "sessions" && len(opts.Dirs) == 0 {
			f.Installed()
		}
		if !f.Place(r.dir, r.reason.Name) {
			continue
		}
		f.Installed()
		buckets, err := os.ReadDir(r.dir)
		if err != nil {
			f.Warn("cannot read %s: %v", r.dir, err)
		}
		for _, b := range buckets {
			if b.IsDir() {
				findSessions(&f, filepath.Join(r.dir, b.Name()), r.reason)
			}
		}
	}
	return f.Result()
}

// findSessions adds one work directory's session files.
func findSessions(f *harness.Finder, bucket string, r harness.Reason) {
	entries, _ := os.ReadDir(bucket)
	dirs := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			dirs[e.Name()] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() {
			// A context file from before session folders; kimi-cli moves
			// it into its folder when it next lists the sessions.
			if id, ok := strings.CutSuffix(name, ".jsonl"); ok && harness.IsUUID(id) && !dirs[id] {
				f.Add(filepath.Join(bucket, name), r)
			}
			continue
		}
		dir := filepath.Join(bucket, name)
		if agents := subFiles(filepath.Join(dir, "agents")); agents != nil {
			for _, a := range agents {
				f.Add(a, r)
			}
			continue
		}
		if isFile(filepath.Join(dir, "wire.jsonl")) {
			f.Add(filepath.Join(dir, "wire.jsonl"), r)
			for _, s := range subFiles(filepath.Join(dir, "subagents")) {
				f.Add(s, r)
			}
			continue
		}
		files, _ := os.ReadDir(dir)
		for _, c := range files {
			n := c.Name()
			if !c.IsDir() && (n == "context.jsonl" || strings.HasPrefix(n, "context_sub_") && strings.HasSuffix(n, ".jsonl")) {
				f.Add(filepath.Join(dir, n), r)
			}
		}
	}
}

// subFiles lists the wire.jsonl of each folder in dir: Kimi Code's agents
// and kimi-cli's subagents. It is nil when dir holds none.
func subFiles(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if p := filepath.Join(dir, e.Name(), "wire.jsonl"); e.IsDir() && isFile(p) {
			out = append(out, p)
		}
	}
	return out
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
