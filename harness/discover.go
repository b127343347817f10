package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Finder collects what a harness's Discover finds: each place looked at,
// each history once with every reason that led to it, and warnings.
type Finder struct {
	d     Discovery
	index map[string]int
}

// Place records a place looked at and reports whether it is a directory
// to search. A place that exists but cannot be searched is a warning.
func (f *Finder) Place(dir, why string) bool {
	info, err := os.Stat(dir)
	ok := err == nil && info.IsDir()
	f.d.Places = append(f.d.Places, Place{Path: dir, Why: why, Exists: ok})
	switch {
	case err == nil && !info.IsDir():
		f.Warn("%s (%s) is a file, not a directory; point %s at the directory", dir, why, why)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		f.Warn("cannot read %s (%s): %v", dir, why, err)
	}
	return ok
}

// Installed marks the harness as having run here.
func (f *Finder) Installed() { f.d.Installed = true }

// Warn adds a warning.
func (f *Finder) Warn(format string, args ...any) {
	f.d.Warnings = append(f.d.Warnings, fmt.Sprintf(format, args...))
}

// Add records the history at path for reason r; a path reached twice
// (through a symlink, or from two places) is one source.
func (f *Finder) Add(path string, r Reason) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		f.Warn("%s (from %s): %v; fix or remove it", path, r, err)
		return
	}
	if f.index == nil {
		f.index = map[string]int{}
	}
	if i, ok := f.index[resolved]; ok {
		for _, have := range f.d.Sources[i].Reasons {
			if have == r {
				return
			}
		}
		f.d.Sources[i].Reasons = append(f.d.Sources[i].Reasons, r)
		return
	}
	info, err := os.Stat(resolved)
	if err != nil || !info.Mode().IsRegular() {
		return
	}
	f.index[resolved] = len(f.d.Sources)
	f.d.Sources = append(f.d.Sources, Source{Path: resolved, Reasons: []Reason{r}, Size: info.Size(), ModTime: info.ModTime()})
}

// Result returns the discovery, sources sorted by path.
func (f *Finder) Result() Discovery {
	sort.Slice(f.d.Sources, func(i, j int) bool { return f.d.Sources[i].Path < f.d.Sources[j].Path })
	return f.d
}

// ExpandHome replaces a leading ~ with home, for places written in a
// config file or a variable the shell did not expand.
func ExpandHome(p, home string) string {
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
