package userfile

import (
	"errors"
	"fmt"
	"path/filepath"
)

// ResolvePath returns p the way deja names a history file: absolute, cleaned,
// and with symlinks resolved as far as the path exists. A relative p is taken
// from the working directory, as an agent takes a relative history path.
//
// Two spellings of one file (relative, through a symlinked project
// directory, with "..") give one name, so a history is indexed once and its
// sessions keep their IDs. When the file itself does not exist (deleted, or
// not written yet) its deepest existing directory is still resolved, so the
// name does not change when the file appears or goes.
func ResolvePath(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path: name a history file")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("making %s absolute: %w", p, err)
	}
	rest := ""
	for dir := abs; ; {
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(resolved, rest), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
