package gemini

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// HomeEnv is the variable that moves Gemini CLI's home: the CLI keeps its
// state in $GEMINI_CLI_HOME/.gemini instead of ~/.gemini
// (packages/core/src/utils/paths.ts, homedir()).
const HomeEnv = "GEMINI_CLI_HOME"

// Discover finds the chat recordings under each place: the tmp directory
// of $GEMINI_CLI_HOME/.gemini or ~/.gemini, or the directories of
// opts.Dirs (the gemini.dirs setting) instead. A place is searched as
// <place>/<project-id>/chats/*.json{,l} and, for subagent chats,
// <place>/<project-id>/chats/<parentSessionId>/*.jsonl. A legacy .json
// chat that the CLI migrated to a .jsonl beside it on resume is left out:
// the .jsonl holds the same session.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var d harness.Discovery
	type place struct {
		dir    string
		reason harness.Reason
	}
	var places []place
	switch {
	case len(opts.Dirs) > 0:
		for _, dir := range opts.Dirs {
			dir = expandHome(dir, opts.Home)
			if fi, err := os.Stat(filepath.Join(dir, "tmp")); err == nil && fi.IsDir() {
				dir = filepath.Join(dir, "tmp")
			}
			places = append(places, place{dir, harness.Reason{Kind: "config", From: dir, Name: "gemini.dirs"}})
		}
	case opts.Env(HomeEnv) != "":
		dir := filepath.Join(opts.Env(HomeEnv), ".gemini", "tmp")
		places = append(places, place{dir, harness.Reason{Kind: "env", From: dir, Name: HomeEnv}})
	case opts.Home != "":
		dir := filepath.Join(opts.Home, ".gemini", "tmp")
		places = append(places, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.gemini/tmp"}})
	}
	found := map[string]int{}
	for _, pl := range places {
		fi, err := os.Stat(pl.dir)
		exists := err == nil && fi.IsDir()
		d.Places = append(d.Places, harness.Place{Path: pl.dir, Why: pl.reason.String(), Exists: exists})
		if cliHome(filepath.Dir(pl.dir)) {
			d.Installed = true
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			d.Warnings = append(d.Warnings, "cannot read "+pl.dir+" ("+pl.reason.String()+"): "+err.Error())
			continue
		case !fi.IsDir():
			d.Warnings = append(d.Warnings, pl.dir+" is not a directory ("+pl.reason.String()+"); name Gemini CLI's tmp directory")
			continue
		}
		for _, p := range chatFiles(pl.dir, &d.Warnings) {
			resolved, err := filepath.EvalSymlinks(p)
			if err != nil {
				continue
			}
			if i, ok := found[resolved]; ok {
				d.Sources[i].Reasons = append(d.Sources[i].Reasons, pl.reason)
				continue
			}
			info, err := os.Stat(resolved)
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			found[resolved] = len(d.Sources)
			d.Sources = append(d.Sources, harness.Source{Path: resolved, Reasons: []harness.Reason{pl.reason}, Size: info.Size(), ModTime: info.ModTime()})
		}
	}
	sort.Slice(d.Sources, func(i, j int) bool { return d.Sources[i].Path < d.Sources[j].Path })
	return d
}

// cliHome reports whether dir, the .gemini folder above a tmp place,
// holds anything of Gemini CLI's. Antigravity and its agy CLI keep
// ~/.gemini/antigravity* there too, so a .gemini holding only those
// is theirs: taking it for Gemini CLI's warned an Antigravity user that
// Gemini CLI "is installed but deja found no sessions".
func cliHome(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		fi, serr := os.Stat(dir)
		return serr == nil && fi.IsDir() // unreadable: say installed, as before
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "antigravity") {
			return true
		}
	}
	return false
}

// chatFiles lists the recordings under one tmp directory.
func chatFiles(tmp string, warnings *[]string) []string {
	var out []string
	projects, err := os.ReadDir(tmp)
	if err != nil {
		*warnings = append(*warnings, "cannot read "+tmp+": "+err.Error())
	}
	for _, pr := range projects {
		chats := filepath.Join(tmp, pr.Name(), "chats")
		entries, err := os.ReadDir(chats)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(chats, e.Name())
			if e.IsDir() {
				subs, _ := os.ReadDir(p)
				for _, s := range subs {
					if !s.IsDir() && filepath.Ext(s.Name()) == ".jsonl" {
						out = append(out, filepath.Join(p, s.Name()))
					}
				}
				continue
			}
			switch filepath.Ext(e.Name()) {
			case ".jsonl":
				out = append(out, p)
			case ".json":
				if !strings.HasPrefix(e.Name(), "session-") {
					continue
				}
				if _, err := os.Stat(p + "l"); err == nil {
					continue
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// expandHome replaces a leading ~ with home, as a shell would have.
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}
