package pi

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// The variables that move the agents' folders.
const (
	// AgentDirEnv replaces pi's ~/.pi/agent (config.ts, ENV_AGENT_DIR);
	// omp honours it too.
	AgentDirEnv = "PI_CODING_AGENT_DIR"
	// StateDirEnv replaces OpenClaw's ~/.openclaw (src/config/paths.ts).
	StateDirEnv = "OPENCLAW_STATE_DIR"
	// XDGDataEnv moves omp's data to $XDG_DATA_HOME/omp once that folder
	// exists (packages/utils/src/dirs.ts).
	XDGDataEnv = "XDG_DATA_HOME"
)

// Discover finds the transcripts of the three agents, on Linux, macOS and
// Windows alike (each keeps its folder under the home directory):
//
//   - pi: <agent>/sessions/--<cwd>--/<timestamp>_<id>.jsonl, <agent> being
//     $PI_CODING_AGENT_DIR or ~/.pi/agent;
//   - omp: ~/.omp/agent/sessions/<cwd>/…jsonl, a named profile's
//     ~/.omp/profiles/<name>/agent/sessions, and $XDG_DATA_HOME/omp/sessions
//     (and its profiles/<name>/sessions) where that folder exists;
//   - OpenClaw: <state>/agents/<agentId>/sessions/<id>.jsonl, <state> being
//     $OPENCLAW_STATE_DIR or ~/.openclaw and each ~/.openclaw-<profile>;
//     compaction checkpoints (<id>.checkpoint.<uuid>.jsonl) are copies and
//     left out, and so is every file not named .jsonl (sessions.json, and
//     the .reset, .deleted and .bak copies).
//
// opts.Dirs (pi.dirs) replace all of these; each may be a sessions folder,
// an agent folder holding sessions/, or an OpenClaw state folder.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	if len(opts.Dirs) > 0 {
		for _, dir := range opts.Dirs {
			dir = harness.ExpandHome(dir, opts.Home)
			if !f.Place(dir, "pi.dirs") {
				continue
			}
			f.Installed()
			r := harness.Reason{Kind: "config", From: dir, Name: "pi.dirs"}
			sessions := dir
			if isDir(filepath.Join(dir, "sessions")) {
				sessions = filepath.Join(dir, "sessions")
			}
			addSessions(&f, sessions, r)
			addState(&f, dir, r)
		}
		return f.Result()
	}
	// pi.
	if env := opts.Env(AgentDirEnv); env != "" {
		dir := filepath.Join(harness.ExpandHome(env, opts.Home), "sessions")
		if f.Place(dir, AgentDirEnv) {
			f.Installed()
			addSessions(&f, dir, harness.Reason{Kind: "env", From: dir, Name: AgentDirEnv})
		}
	} else if opts.Home != "" {
		dir := filepath.Join(opts.Home, ".pi", "agent", "sessions")
		if isDir(filepath.Join(opts.Home, ".pi", "agent")) {
			f.Installed()
		}
		if f.Place(dir, "~/.pi/agent/sessions") {
			addSessions(&f, dir, harness.Reason{Kind: "default", From: dir, Name: "~/.pi/agent/sessions"})
		}
	}
	// omp.
	if opts.Home != "" {
		omp := filepath.Join(opts.Home, ".omp")
		if isDir(omp) {
			f.Installed()
		}
		dir := filepath.Join(omp, "agent", "sessions")
		if f.Place(dir, "~/.omp/agent/sessions") {
			addSessions(&f, dir, harness.Reason{Kind: "default", From: dir, Name: "~/.omp/agent/sessions"})
		}
		profiles, _ := filepath.Glob(filepath.Join(omp, "profiles", "*", "agent", "sessions"))
		for _, dir := range profiles {
			if f.Place(dir, "omp profile") {
				addSessions(&f, dir, harness.Reason{Kind: "default", From: dir, Name: "omp profile"})
			}
		}
	}
	if xdg := opts.Env(XDGDataEnv); xdg != "" && isDir(filepath.Join(xdg, "omp")) {
		f.Installed()
		dirs := []string{filepath.Join(xdg, "omp", "sessions")}
		profiles, _ := filepath.Glob(filepath.Join(xdg, "omp", "profiles", "*", "sessions"))
		for _, dir := range append(dirs, profiles...) {
			if f.Place(dir, XDGDataEnv) {
				addSessions(&f, dir, harness.Reason{Kind: "env", From: dir, Name: XDGDataEnv})
			}
		}
	}
	// OpenClaw.
	if env := opts.Env(StateDirEnv); env != "" {
		dir := harness.ExpandHome(env, opts.Home)
		if f.Place(dir, StateDirEnv) {
			f.Installed()
			addState(&f, dir, harness.Reason{Kind: "env", From: dir, Name: StateDirEnv})
		}
	} else if opts.Home != "" {
		dir := filepath.Join(opts.Home, ".openclaw")
		if f.Place(dir, "~/.openclaw") {
			f.Installed()
			addState(&f, dir, harness.Reason{Kind: "default", From: dir, Name: "~/.openclaw"})
		}
		profiles, _ := filepath.Glob(filepath.Join(opts.Home, ".openclaw-*"))
		for _, dir := range profiles {
			if isDir(dir) && f.Place(dir, "OpenClaw profile") {
				f.Installed()
				addState(&f, dir, harness.Reason{Kind: "default", From: dir, Name: "OpenClaw profile"})
			}
		}
	}
	return f.Result()
}

// addSessions adds the transcripts of a pi or omp sessions folder: one
// folder per working directory, and transcripts at its top, where
// --session-dir puts them.
func addSessions(f *harness.Finder, dir string, r harness.Reason) {
	for _, pat := range []string{"*.jsonl", filepath.Join("*", "*.jsonl")} {
		files, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, p := range files {
			f.Add(p, r)
		}
	}
}

// addState adds the transcripts of an OpenClaw state folder's agents.
func addState(f *harness.Finder, dir string, r harness.Reason) {
	files, _ := filepath.Glob(filepath.Join(dir, "agents", "*", "sessions", "*.jsonl"))
	for _, p := range files {
		if strings.Contains(filepath.Base(p), ".checkpoint.") {
			continue
		}
		f.Add(p, r)
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
