package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/deja-dev/deja/memory"
)

// projectFlag resolves a --project value as a person types it: "~/src/x"
// (quoted, so the shell left it), a relative path, a symlink. The empty
// value is no project.
func projectFlag(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	dir, err := memory.ResolveProject(p)
	if err != nil {
		return "", fmt.Errorf("--project: %w", err)
	}
	return dir, nil
}

// checkScope ends the command with exit 2 when its filters can match
// nothing because of how they were asked (an unknown project, since after
// until), rather than answering "nothing found" as if the memory were
// empty.
func checkScope(ctx context.Context, store *memory.Store, sc memory.Scope) error {
	err := store.CheckScope(ctx, sc)
	if errors.Is(err, memory.ErrBadScope) {
		return exitError{code: 2, msg: err.Error()}
	}
	return err
}
