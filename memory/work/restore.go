package work

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// Restorable is a turn's recorded edits of a file.
type Restorable struct {
	Turn
	File  string       `json:"file"`
	Edits []chunk.Edit `json:"edits"`
}

// ErrNoEdit is Restore's answer when no turn in scope recorded an edit of
// the file with the text it replaced.
var ErrNoEdit = errors.New("no recorded edit of this file holds the text it replaced")

// Restore returns the newest turn in scope (or in session, the turn turn
// when it is not nil) whose recorded edits of path hold old text, with those
// edits in order. An edit whose old text was too long to keep whole, or
// that wrote the whole file, is listed but cannot be restored
// (Clipped, Whole).
func Restore(ctx context.Context, s *store.Store, sc recall.Scope, path, session string, turn *int) (Restorable, error) {
	asked := harness.RelPath("", path) // as the readers write a file record
	base := filepath.Base(asked)
	cond, args := `instr(t.files, ?) > 0`, []any{base}
	if session != "" {
		sc.Session, sc.Subagents = session, true
	}
	if turn != nil {
		cond += ` AND t.turn = ?`
		args = append(args, *turn)
	}
	var found *Restorable
	err := scanRows(ctx, s, sc, `w.work IS NOT NULL AND `+cond, args, candidates, withAll, func(r row) error {
		// A failed edit replaced nothing: its old text is still in the
		// file, and restoring it would restore nothing.
		var edits []chunk.Edit
		for _, e := range editsOf(r, asked) {
			if e.Status != harness.Failed {
				edits = append(edits, e)
			}
		}
		for _, e := range edits {
			if e.Old != "" {
				found = &Restorable{Turn: r.Turn, File: e.File, Edits: edits}
				return errStop
			}
		}
		return nil
	})
	switch {
	case err != nil:
		return Restorable{}, err
	case found == nil:
		return Restorable{}, ErrNoEdit
	}
	return *found, nil
}
