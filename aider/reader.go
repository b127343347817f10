package aider

import (
	"os"
	"path/filepath"

	"github.com/deja-dev/deja/harness"
)

// Name is aider's name among the harnesses.
const Name = "aider"

// Reader is aider as a harness: it discovers .aider.chat.history.md files
// and parses them with Parse. A registry puts it last, because it reads any
// text file it is given.
type Reader struct{}

var _ harness.FileReader = Reader{}

// Name returns "aider".
func (Reader) Name() string { return Name }

// Sniff accepts any text file: aider's histories are Markdown named by the
// user (AIDER_CHAT_HISTORY_FILE), so no name or first line marks them. A
// binary file is refused with ErrBinary.
func (Reader) Sniff(path string, head []byte) error {
	if IsBinary(head) {
		return ErrBinary
	}
	return nil
}

// Parse parses one history; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

// HistoryInProject says aider keeps a history in the project it worked
// in (.aider.chat.history.md in the repository): its sessions, which name
// no working directory, are given the history's folder as their project.
func (Reader) HistoryInProject() {}

// SessionStart is what begins every session at the start of a line, the
// header: Parse starts a session there whatever state it is in, so a
// history can be parsed a window of whole sessions at a time.
func (Reader) SessionStart() []byte { return []byte(headerPrefix) }

// Discover looks where DiscoverOptionsFromEnv says, with opts' home,
// working directory and environment; the aider.dirs configuration key adds
// roots beside DEJA_AIDER_ROOTS.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery {
	do := DiscoverOptions{
		Home:       opts.Home,
		HistoryEnv: opts.Env("AIDER_CHAT_HISTORY_FILE"),
		WorkDir:    opts.WorkDir,
	}
	if opts.WorkDir != "" {
		do.Here = ProjectOf(opts.WorkDir)
	}
	if opts.ConfigDir != "" {
		do.ProjectsFile = filepath.Join(opts.ConfigDir, "aider-projects")
	}
	for _, root := range filepath.SplitList(opts.Env("DEJA_AIDER_ROOTS")) {
		if root != "" {
			do.Roots = append(do.Roots, expandHome(root, opts.Home))
		}
	}
	for _, root := range opts.Dirs {
		do.Roots = append(do.Roots, expandHome(root, opts.Home))
	}
	sources, warnings := Discover(do)
	d := harness.Discovery{Warnings: warnings}
	for _, s := range sources {
		hs := harness.Source{Path: s.Path, Size: s.Size, ModTime: s.ModTime}
		for _, r := range s.Reasons {
			hs.Reasons = append(hs.Reasons, harness.Reason{Kind: string(r.Kind), From: r.From, Name: r.String()})
		}
		d.Sources = append(d.Sources, hs)
	}
	if do.Home != "" {
		p := filepath.Join(do.Home, HistoryFileName)
		d.Places = append(d.Places, harness.Place{Path: p, Why: "home", Exists: exists(p)})
	}
	if do.HistoryEnv != "" {
		d.Places = append(d.Places, harness.Place{Path: do.HistoryEnv, Why: "AIDER_CHAT_HISTORY_FILE", Exists: exists(do.HistoryEnv)})
	}
	if do.ProjectsFile != "" {
		d.Places = append(d.Places, harness.Place{Path: do.ProjectsFile, Why: "aider-projects", Exists: exists(do.ProjectsFile)})
	}
	if do.Here != "" {
		p := filepath.Join(do.Here, HistoryFileName)
		d.Places = append(d.Places, harness.Place{Path: p, Why: "this project", Exists: exists(p)})
	}
	for _, r := range do.Roots {
		d.Places = append(d.Places, harness.Place{Path: r, Why: "root", Exists: exists(r)})
	}
	// aider keeps no directory of its own, so it counts as installed only
	// when a history was found.
	d.Installed = len(d.Sources) > 0
	if !d.Installed && onPath("aider", opts.Env("PATH")) {
		// Installed all the same: say where its histories are and how
		// deja is told.
		projects := "the project list (aider-projects in deja's config directory)"
		if do.ProjectsFile != "" {
			projects = do.ProjectsFile
		}
		d.Warnings = append(d.Warnings, "aider is installed, but deja found none of its histories: aider writes "+HistoryFileName+
			" at the top of each project it runs in; run 'deja index' inside a project (deja then remembers it), list projects in "+
			projects+", or set aider.dirs or DEJA_AIDER_ROOTS to the directories that hold them (for example ~/code)")
	}
	return d
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// onPath reports whether an executable named name is in one of path's
// directories.
func onPath(name, path string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, file := range []string{name, name + ".exe"} {
			if fi, err := os.Stat(filepath.Join(dir, file)); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				return true
			}
		}
	}
	return false
}
