package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// projectFlag resolves a --project value as a person types it: "~/src/x"
// (quoted, so the shell left it), a relative path, a symlink. The empty
// value is no project.
func projectFlag(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	dir, err := recall.ResolveProject(p)
	if err != nil {
		return "", fmt.Errorf("--project: %w", err)
	}
	return dir, nil
}

// checkScope ends the command with exit 2 when its filters can match
// nothing because of how they were asked (an unknown project, since after
// until), rather than answering "nothing found" as if the memory were
// empty.
func checkScope(ctx context.Context, sto *store.Store, sc recall.Scope) error {
	err := recall.CheckScope(ctx, sto, sc)
	if errors.Is(err, recall.ErrBadScope) {
		return exitError{code: 2, msg: err.Error()}
	}
	return err
}
