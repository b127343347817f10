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
// machine since the turn: a file whose modification time is later or that
// is gone, or, given the project's commits (Commits), one a commit since
// then touched. of is how many of the files it could look at (those of a
// project directory that exists here); 0 means it cannot tell, and a
// caller then says nothing. Nothing is ever said to be unchanged: an
// editor may restore a modification time, and a file may change and
// change back.
func Changed(project string, files []string, since time.Time, commits []Commit) (changed, of int) {
	if since.IsZero() || project == "" || !filepath.IsAbs(project) || len(files) == 0 {
		return 0, 0
	}
	if st, err := os.Stat(project); err != nil || !st.IsDir() {
		return 0, 0 // another machine's project, or one moved or deleted
	}
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
		if st, err := os.Stat(p); err != nil || st.ModTime().After(since) || committedAfter(commits, filepath.ToSlash(r), since) {
			changed++
		}
	}
	return changed, of
}

// Commit is one commit of a project's repository: when, and the files it
// touched relative to the project.
type Commit struct {
	Time  time.Time
	Files map[string]bool
}

func committedAfter(commits []Commit, rel string, since time.Time) bool {
	for _, c := range commits {
		if c.Time.After(since) && c.Files[rel] {
			return true
		}
	}
	return false
}

// gitWait bounds the one git command a staleness check runs.
const gitWait = 2 * time.Second

// maxCommits bounds the commits read for a staleness check.
const maxCommits = 2000

// Commits are the commits since the time of the git repository the
// project is in (at most maxCommits, newest first), with one git process
// that may take gitWait; nil where the project is in no repository, git is
// not installed or does not answer in time.
func Commits(ctx context.Context, project string, since time.Time) []Commit {
	if project == "" || !filepath.IsAbs(project) || !inRepository(project) {
		return nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitWait)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", project, "log", "--since=@"+strconv.FormatInt(since.Unix(), 10),
		"--max-count="+strconv.Itoa(maxCommits), "--format=@%ct", "--name-only", "--relative").Output()
	if err != nil {
		return nil
	}
	var commits []Commit
	for l := range strings.SplitSeq(string(out), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "@"):
			if sec, err := strconv.ParseInt(l[1:], 10, 64); err == nil {
				commits = append(commits, Commit{Time: time.Unix(sec, 0), Files: map[string]bool{}})
			}
		case l != "" && len(commits) > 0:
			commits[len(commits)-1].Files[l] = true
		}
	}
	return commits
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
