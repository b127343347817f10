package aider

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/deja-dev/deja/userfile"
)

// HistoryFileName is the name aider gives its chat history by default.
const HistoryFileName = ".aider.chat.history.md"

// rootDepth is how many directory levels below a root Discover looks: a
// root such as ~/code holds projects (~/code/app) and groups of projects
// (~/code/work/app), and aider writes its history at a project's top.
const rootDepth = 2

// DiscoverOptions says where Discover looks. Discover reads no environment
// variables itself; DiscoverOptionsFromEnv fills this from the environment.
type DiscoverOptions struct {
	// Home is the user's home directory, whose history exists when aider
	// was started there. Empty skips it.
	Home string
	// HistoryEnv is AIDER_CHAT_HISTORY_FILE as set; empty when unset.
	HistoryEnv string
	// WorkDir is the directory a relative HistoryEnv is taken from, as
	// aider takes it from its working directory. Empty means the process's
	// working directory.
	WorkDir string
	// ProjectsFile lists the project directories `deja aider` started
	// aider in, one absolute path a line. Empty, or a missing file, skips it.
	ProjectsFile string
	// Here is the project the command runs in (the repository root of the
	// working directory, or the directory itself outside a repository),
	// whose history aider wrote there. Empty skips it.
	Here string
	// Roots are directories searched for histories in themselves and up to
	// two levels below.
	Roots []string
}

// DiscoverOptionsFromEnv returns the options deja uses by default: the home
// directory, AIDER_CHAT_HISTORY_FILE, the working directory, the given
// project list and the directories of DEJA_AIDER_ROOTS (separated by the
// platform's path-list separator; a leading ~ stands for the home directory).
func DiscoverOptionsFromEnv(projectsFile string) DiscoverOptions {
	// Without a home directory or a working directory the places that need
	// them are skipped or fall back, rather than failing discovery.
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	opts := DiscoverOptions{
		Home:         home,
		HistoryEnv:   os.Getenv("AIDER_CHAT_HISTORY_FILE"),
		WorkDir:      wd,
		ProjectsFile: projectsFile,
	}
	for _, root := range filepath.SplitList(os.Getenv("DEJA_AIDER_ROOTS")) {
		if root == "" {
			continue
		}
		opts.Roots = append(opts.Roots, expandHome(root, home))
	}
	return opts
}

// expandHome replaces a leading ~ with home: a quoted
// DEJA_AIDER_ROOTS="~/code" reaches deja unexpanded by the shell.
func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return filepath.Join(home, p[2:])
	}
	return p
}

// ReasonKind says which kind of place led Discover to a history.
type ReasonKind string

// The places Discover looks, in the order it looks.
const (
	ReasonHome    ReasonKind = "home"
	ReasonEnv     ReasonKind = "env"
	ReasonProject ReasonKind = "project"
	ReasonHere    ReasonKind = "here"
	ReasonRoot    ReasonKind = "root"
)

// Reason is one place that led Discover to a history.
type Reason struct {
	Kind ReasonKind
	// From is the home directory, AIDER_CHAT_HISTORY_FILE as set, the
	// project directory as listed, or the root, by Kind.
	From string
}

// String names the reason as a user would look it up: the variable, the
// file or the root to change.
func (r Reason) String() string {
	switch r.Kind {
	case ReasonHome:
		return "home"
	case ReasonEnv:
		return "AIDER_CHAT_HISTORY_FILE"
	case ReasonProject:
		return "aider-projects"
	case ReasonHere:
		return "this project"
	case ReasonRoot:
		return "root " + r.From
	}
	return string(r.Kind) + " " + r.From
}

// Source is one history file Discover found.
type Source struct {
	// Path is absolute with symlinks resolved; see userfile.ResolvePath.
	Path string
	// Reasons are the places that led to the file, in the order Discover
	// looks (home, env, project, root); there is at least one.
	Reasons []Reason
	Size    int64
	ModTime time.Time
}

// Discover finds the aider histories the options point at: the home
// directory's history, AIDER_CHAT_HISTORY_FILE, the history of each listed
// project and of the project the command runs in, and the histories in
// each root and up to two levels below it. A
// file reached from several places is one Source with every reason.
// Sources come sorted by path.
//
// A place that is missing, unreadable or of the wrong type is not an error:
// it becomes a warning that says what to fix, and discovery goes on. The
// home history and the project list are optional, so their absence is
// not a warning.
func Discover(opts DiscoverOptions) ([]Source, []string) {
	d := discovery{index: map[string]int{}, visited: map[Reason]bool{}}
	if opts.Home != "" {
		d.add(filepath.Join(opts.Home, HistoryFileName), Reason{ReasonHome, opts.Home}, "")
	}
	if opts.HistoryEnv != "" {
		p := opts.HistoryEnv
		if !filepath.IsAbs(p) && opts.WorkDir != "" {
			p = filepath.Join(opts.WorkDir, p)
		}
		d.add(p, Reason{ReasonEnv, opts.HistoryEnv}, fmt.Sprintf(
			"AIDER_CHAT_HISTORY_FILE names %s, which does not exist yet; aider creates it on its next run", p))
	}
	if opts.ProjectsFile != "" {
		d.readProjects(opts.ProjectsFile)
	}
	if opts.Here != "" {
		d.add(filepath.Join(opts.Here, HistoryFileName), Reason{ReasonHere, opts.Here}, "")
	}
	for _, root := range opts.Roots {
		d.searchRoot(root)
	}
	sort.Slice(d.sources, func(i, j int) bool { return d.sources[i].Path < d.sources[j].Path })
	return d.sources, d.warnings
}

// discovery is the state of one Discover call.
type discovery struct {
	sources  []Source
	warnings []string
	// index maps a resolved path to its position in sources, or to -1 when
	// the path was already reported as unusable.
	index map[string]int
	// visited holds the projects and roots already searched, by resolved
	// directory, so a place listed twice is searched once.
	visited map[Reason]bool
}

func (d *discovery) warn(format string, args ...any) {
	d.warnings = append(d.warnings, fmt.Sprintf(format, args...))
}

// add records the history at path for reason r and reports whether it is
// a source. ifMissing, when set, is the warning for a file that does not
// exist; an empty ifMissing makes absence silent.
func (d *discovery) add(path string, r Reason, ifMissing string) bool {
	resolved, err := userfile.ResolvePath(path)
	if err != nil {
		d.warn("%v (from %s)", err, r)
		return false
	}
	if i, seen := d.index[resolved]; seen {
		if i < 0 {
			return false
		}
		d.sources[i].addReason(r)
		return true
	}
	info, ok := d.readable(resolved, r, ifMissing)
	if !ok {
		d.index[resolved] = -1
		return false
	}
	d.index[resolved] = len(d.sources)
	d.sources = append(d.sources, Source{
		Path:    resolved,
		Reasons: []Reason{r},
		Size:    info.Size(),
		ModTime: info.ModTime(),
	})
	return true
}

// readable returns the file's information when the resolved path is a
// history deja can read, and warns when it is not.
func (d *discovery) readable(path string, r Reason, ifMissing string) (fs.FileInfo, bool) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			d.warn("%s is a symlink to a file that does not exist (from %s); fix or remove the link", path, r)
		} else if ifMissing != "" {
			d.warn("%s", ifMissing)
		}
		return nil, false
	case err != nil:
		d.warn("cannot read %s (from %s): %v", path, r, err)
		return nil, false
	case info.IsDir():
		d.warn("%s is a directory, not a history file (from %s)", path, r)
		return nil, false
	case !info.Mode().IsRegular():
		// Opening a named pipe would block until someone writes to it.
		d.warn("%s is a %s, not a regular file (from %s); point deja at the history file itself", path, userfile.Kind(info.Mode()), r)
		return nil, false
	}
	// Not os.Open: the path may have become a FIFO since the Stat.
	f, _, err := userfile.Open(path)
	if err != nil {
		d.warn("cannot read %s (from %s): %v", path, r, err)
		return nil, false
	}
	f.Close()
	return info, true
}

func (s *Source) addReason(r Reason) {
	for _, have := range s.Reasons {
		if have == r {
			return
		}
	}
	s.Reasons = append(s.Reasons, r)
}

// readProjects adds the history of each directory in the project list.
// Lines are absolute paths; blank lines and lines starting with # are
// skipped.
func (d *discovery) readProjects(file string) {
	data, _, err := userfile.Read(context.Background(), file, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		d.warn("cannot read the project list %s: %v; fix or remove it", file, err)
		return
	}
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// The list is read from any working directory, so a relative
		// line has no single meaning.
		if !filepath.IsAbs(line) {
			d.warn("%s line %d: %q is not an absolute path; write the project's full path", file, n, line)
			continue
		}
		if !d.firstVisit(ReasonProject, line) {
			continue
		}
		info, err := os.Stat(line)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			d.warn("%s line %d: project %s no longer exists; remove the line if it has gone", file, n, line)
			continue
		case err != nil:
			d.warn("%s line %d: cannot read project %s: %v", file, n, line, err)
			continue
		case !info.IsDir():
			d.warn("%s line %d: project %s is not a directory; list the directory aider ran in", file, n, line)
			continue
		}
		history := filepath.Join(line, HistoryFileName)
		d.add(history, Reason{ReasonProject, line}, fmt.Sprintf(
			"%s line %d: %s does not exist; remove the line if aider no longer runs there", file, n, history))
	}
}

// firstVisit reports whether dir has not been searched yet as a place of
// the given kind, and marks it searched. A project and a root may be the
// same directory: the root is still walked below it.
func (d *discovery) firstVisit(kind ReasonKind, dir string) bool {
	resolved, err := userfile.ResolvePath(dir)
	if err != nil {
		resolved = dir
	}
	key := Reason{kind, resolved}
	if d.visited[key] {
		return false
	}
	d.visited[key] = true
	return true
}

// searchRoot adds the histories in root and up to rootDepth levels below.
func (d *discovery) searchRoot(root string) {
	info, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.warn("DEJA_AIDER_ROOTS: %s does not exist; fix or remove it", root)
		return
	case err != nil:
		d.warn("DEJA_AIDER_ROOTS: cannot read %s: %v", root, err)
		return
	case !info.IsDir():
		d.warn("DEJA_AIDER_ROOTS: %s is a file; list the directories that hold your projects", root)
		return
	}
	if !d.firstVisit(ReasonRoot, root) {
		return
	}
	if d.walk(root, root, 0) == 0 {
		d.warn("DEJA_AIDER_ROOTS: no %s in %s or two levels below it", HistoryFileName, root)
	}
}

// walk adds the history in dir, then walks dir's subdirectories while
// depth is below rootDepth, and returns how many sources it found.
//
// Hidden directories (.git, .venv, .cache) and node_modules are skipped:
// aider never writes a history inside them, and they are where the big
// trees are. Symlinked directories are followed, because projects are
// often linked into a root; the depth limit keeps a link loop finite and
// the resolved path keeps it from counting a history twice.
func (d *discovery) walk(root, dir string, depth int) int {
	found := 0
	history := filepath.Join(dir, HistoryFileName)
	if _, err := os.Lstat(history); !errors.Is(err, fs.ErrNotExist) {
		if d.add(history, Reason{ReasonRoot, root}, "") {
			found++
		}
	}
	if depth == rootDepth {
		return found
	}
	// ReadDir returns what it read before an error, so a partly readable
	// directory is still searched.
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.warn("cannot read %s (under root %s): %v; skipped", dir, root, err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		sub := filepath.Join(dir, name)
		if !isDir(e, sub) {
			continue
		}
		found += d.walk(root, sub, depth+1)
	}
	return found
}

// isDir reports whether the entry is a directory or a symlink to one.
func isDir(e fs.DirEntry, path string) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// ProjectOf is the project a directory belongs to: the nearest directory
// at or above it that holds .git (a directory, or the file a worktree or
// submodule has), else dir itself. aider writes its history at the top of
// the repository it runs in (aider's args.py, get_git_root).
func ProjectOf(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}
