// Package stale tells whether the files a past turn edited changed
// since, so an answer quoting an old edit can say the code moved on.
package stale

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Changed counts the files a past turn edited that changed on this
// machine since the turn: a file whose modification time is later or
// that is gone, and with git, one that a commit since then touched where
// the project is a repository (a git process: blame asks, recall does
// not, as it answers each prompt of an agent). of is how many of the
// files it could look at (those of a project directory that exists
// here); 0 means it cannot tell, and a caller then says nothing. Nothing is ever said to be unchanged: an
// editor may restore a modification time, and a file may change and
// change back.
func Changed(ctx context.Context, project string, files []string, since time.Time, git bool) (changed, of int) {
	if since.IsZero() || project == "" || !filepath.IsAbs(project) || len(files) == 0 {
		return 0, 0
	}
	if st, err := os.Stat(project); err != nil || !st.IsDir() {
		return 0, 0 // another machine's project, or one moved or deleted
	}
	var rel []string
	stale := map[string]bool{}
	for _, f := range files {
		p := filepath.FromSlash(f)
		if !filepath.IsAbs(p) {
			p = filepath.Join(project, p)
		}
		r, err := filepath.Rel(project, p)
		if err != nil || strings.HasPrefix(r, "..") {
			continue // outside the project: whose file it is, is not known
		}
		of++
		rel = append(rel, filepath.ToSlash(r))
		if st, err := os.Stat(p); err != nil || st.ModTime().After(since) {
			stale[filepath.ToSlash(r)] = true
		}
	}
	if git {
		for _, f := range committedSince(ctx, project, rel, since) {
			stale[f] = true
		}
	}
	return len(stale), of
}

// gitWait bounds the one git command a staleness check runs.
const gitWait = 2 * time.Second

// committedSince are the files of rel (relative to the project) that a
// commit since the time touched, where the project is in a git
// repository and git answers within gitWait; nil otherwise.
func committedSince(ctx context.Context, project string, rel []string, since time.Time) []string {
	if len(rel) == 0 || !inRepository(project) {
		return nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitWait)
	defer cancel()
	args := append([]string{"-C", project, "log", "--since=@" + strconv.FormatInt(since.Unix(), 10), "--name-only", "--format=", "--relative", "--"}, rel...)
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return nil
	}
	want := map[string]bool{}
	for _, r := range rel {
		want[r] = true
	}
	var got []string
	for l := range strings.SplitSeq(string(out), "\n") {
		if l = strings.TrimSpace(l); want[l] {
			got = append(got, l)
			delete(want, l)
		}
	}
	return got
}

// inRepository reports a directory in a git work tree: it or a parent
// holds .git.
func inRepository(dir string) bool {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// File is what this machine knows of one file's changes: when it was
// last modified, and the times of the commits that touched it where its
// project is a git repository.
type File struct {
	Known    bool // the project is here: the rest means something
	Gone     bool
	Modified time.Time
	Commits  []time.Time
}

// Look reads a file's modification time and, with one git process, the
// times of the commits that touched it (git waits at most gitWait).
func Look(ctx context.Context, project, file string) File {
	if project == "" || !filepath.IsAbs(project) {
		return File{}
	}
	if st, err := os.Stat(project); err != nil || !st.IsDir() {
		return File{}
	}
	p := filepath.FromSlash(file)
	if !filepath.IsAbs(p) {
		p = filepath.Join(project, p)
	}
	r, err := filepath.Rel(project, p)
	if err != nil || strings.HasPrefix(r, "..") {
		return File{}
	}
	f := File{Known: true}
	if st, err := os.Stat(p); err != nil {
		f.Gone = true
	} else {
		f.Modified = st.ModTime()
	}
	if inRepository(project) {
		if _, err := exec.LookPath("git"); err == nil {
			ctx, cancel := context.WithTimeout(ctx, gitWait)
			defer cancel()
			out, err := exec.CommandContext(ctx, "git", "-C", project, "log", "--format=%ct", "--", filepath.ToSlash(r)).Output()
			if err == nil {
				for l := range strings.SplitSeq(string(out), "\n") {
					if sec, err := strconv.ParseInt(strings.TrimSpace(l), 10, 64); err == nil {
						f.Commits = append(f.Commits, time.Unix(sec, 0))
					}
				}
			}
		}
	}
	return f
}

// ChangedSince reports the file changed after t: modified or committed
// later, or gone. False says only that nothing shows a change.
func (f File) ChangedSince(t time.Time) bool {
	if !f.Known || t.IsZero() {
		return false
	}
	if f.Gone || f.Modified.After(t) {
		return true
	}
	for _, c := range f.Commits {
		if c.After(t) {
			return true
		}
	}
	return false
}
