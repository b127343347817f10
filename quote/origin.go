package quote

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Origins tells, for a history file, whether a repository brought it in
// rather than an agent on this machine writing it. The test is that git
// tracks the file: a committed .aider.chat.history.md came with a clone or
// a pull and may hold whatever anyone with commit access wrote, while the
// history aider writes locally is untracked (aider puts .aider* in
// .gitignore). A history outside any repository, or where git cannot be
// run, counts as written here. The answers are kept for the Origins'
// lifetime: make one per digest or per reply.
type Origins struct {
	known map[string]bool
	// Tracked reports whether git tracks path; nil runs git.
	Tracked func(path string) bool
}

// Imported reports whether the history at path was brought in by its
// repository.
func (o *Origins) Imported(path string) bool {
	if path == "" {
		return false
	}
	if v, ok := o.known[path]; ok {
		return v
	}
	if o.known == nil {
		o.known = map[string]bool{}
	}
	tracked := o.Tracked
	if tracked == nil {
		tracked = GitTracked
	}
	v := tracked(path)
	o.known[path] = v
	return v
}

// gitTimeout bounds one git call: a digest or a reply waits for it.
const gitTimeout = 2 * time.Second

// GitTracked reports whether path is a file git tracks in the repository
// that holds it.
func GitTracked(path string) bool {
	dir := filepath.Dir(path)
	if !inRepository(dir) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "ls-files", "--error-unmatch", "--", filepath.Base(path))
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	return cmd.Run() == nil
}

// inRepository reports whether dir or a directory above it holds .git, so
// a history outside any repository costs no process.
func inRepository(dir string) bool {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}
