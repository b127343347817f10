package work

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/stale"
	"github.com/deja-dev/deja/memory/store"
)

// How a turn touched the file a blame asks about, strongest first.
const (
	Edited = "edited"
	// EditFailed: every edit of the file the turn recorded failed (its
	// harness refused or could not apply it), so it did not change it.
	EditFailed = "edit failed"
	Added      = "added"
	Read       = "read"
	Discussed  = "discussed"
)

// BlameItem is one turn that touched a file.
type BlameItem struct {
	Turn
	// How is edited, edit failed, added, read or discussed (named in its
	// words only).
	How string `json:"how"`
	// File is the path as the turn recorded it.
	File string `json:"file"`
	// Outcome is failed when an edit of the file in this turn failed, ok
	// when the harness marked each one applied, empty when it did not say.
	Outcome harness.Status `json:"outcome,omitempty"`
	// Edits counts the edit spans recorded for the file; Added and
	// Removed the lines their new and old texts hold.
	Edits   int `json:"edits,omitempty"`
	Added   int `json:"lines_added,omitempty"`
	Removed int `json:"lines_removed,omitempty"`
	// Restorable says an edit's old text is whole, for 'deja restore'.
	Restorable bool `json:"restorable,omitempty"`
	// ChangedSince says the file changed on this machine after the turn
	// edited it (modified, committed or deleted since); false says only
	// that nothing shows a change, or that it cannot tell.
	ChangedSince bool `json:"changed_since,omitempty"`
	done         time.Time
}

// Blame returns the turns that edited path (then those that added or read
// it, then those that named it in their words), newest first within each,
// at most limit. path is as a person gives it: relative to the project,
// or absolute.
func Blame(ctx context.Context, s *store.Store, sc recall.Scope, path string, limit int) ([]BlameItem, error) {
	asked := harness.RelPath("", path) // as the readers write a file record
	base := filepath.Base(asked)
	if base == "" || base == "." || base == "/" {
		return nil, nil
	}
	var byHow [5][]BlameItem
	seen := map[int64]bool{}
	err := scanRows(ctx, s, sc, `instr(t.files, ?) > 0`, []any{base}, candidates, withAll, func(r row) error {
		if it, ok := touched(r, asked); ok {
			seen[r.id] = true
			byHow[rank(it.How)] = append(byHow[rank(it.How)], it)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n := len(byHow[0]) + len(byHow[1]) + len(byHow[2]) + len(byHow[3]); n < limit {
		words := asked
		if sc.Project != "" {
			words = strings.TrimPrefix(words, filepath.ToSlash(sc.Project)+"/")
		}
		named, err := discussed(ctx, s, sc, words, seen, limit-n)
		if err != nil {
			return nil, err
		}
		byHow[4] = named
	}
	var out []BlameItem
	for _, items := range byHow {
		for _, it := range items {
			if len(out) < limit {
				out = append(out, it)
			}
		}
	}
	// Whether the file changed since each edit: one look a file.
	looked := map[string]stale.File{}
	for i, it := range out {
		if it.How != Edited {
			continue
		}
		key := it.Project + "\x00" + it.File
		f, ok := looked[key]
		if !ok {
			f = stale.Look(ctx, it.Project, it.File)
			looked[key] = f
		}
		out[i].ChangedSince = f.ChangedSince(it.done)
	}
	return out, nil
}

func rank(how string) int {
	switch how {
	case Edited:
		return 0
	case EditFailed:
		return 1
	case Added:
		return 2
	case Read:
		return 3
	}
	return 4
}

// touched is how the row's records touched the file, if they name it.
func touched(r row, asked string) (BlameItem, bool) {
	it := BlameItem{Turn: r.Turn, done: r.done}
	best := -1
	for i, f := range r.files {
		if !sameFile(f, asked, r.Project) {
			continue
		}
		var a harness.FileAction
		if i < len(r.actions) {
			a = harness.FileAction(r.actions[i])
		}
		how := Read
		switch a {
		case harness.Edited:
			how = Edited
		case harness.Added:
			how = Added
		case "":
			// A harness that does not say how a file was touched (some
			// aider records) names it: read at least.
		}
		if best == -1 || rank(how) < best {
			best, it.How, it.File = rank(how), how, f
		}
	}
	if best == -1 {
		return it, false
	}
	applied := 0
	for _, e := range r.work.Edits {
		if !sameFile(e.File, asked, r.Project) {
			continue
		}
		it.Edits++
		it.Added += lines(e.New)
		it.Removed += lines(e.Old)
		if e.Old != "" && !e.Clipped && !e.Whole && e.Status != harness.Failed {
			it.Restorable = true // a failed edit replaced nothing
		}
		switch e.Status {
		case harness.Failed:
			it.Outcome = harness.Failed
		case harness.Succeeded:
			applied++
			if it.Outcome == "" {
				it.Outcome = harness.Succeeded
			}
		default:
			applied++ // not known to have failed
		}
	}
	switch {
	case it.Edits > 0 && it.Outcome == harness.Failed && applied == 0:
		it.How = EditFailed
	case it.Edits > 0:
		it.How = Edited
	}
	return it, true
}

// lines counts a span's lines.
func lines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// discussed returns the turns not in seen whose question or answer names
// the file: the words of its path in order, through the keyword index.
func discussed(ctx context.Context, s *store.Store, sc recall.Scope, asked string, seen map[int64]bool, limit int) ([]BlameItem, error) {
	words := strings.FieldsFunc(asked, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127)
	})
	if len(words) == 0 {
		return nil, nil
	}
	phrase := `{user assistant} : "` + strings.Join(words, " ") + `"`
	rows, err := readRows(ctx, s, sc, `t.id IN (SELECT rowid FROM turns_fts WHERE turns_fts MATCH ?)`, []any{phrase}, candidates, withNeither)
	if err != nil {
		return nil, err
	}
	var out []BlameItem
	for _, r := range rows {
		if seen[r.id] || len(out) == limit {
			continue
		}
		out = append(out, BlameItem{Turn: r.Turn, How: Discussed, File: asked})
	}
	return out, nil
}

// editsOf are the row's recorded edits of the file.
func editsOf(r row, asked string) []chunk.Edit {
	var out []chunk.Edit
	for _, e := range r.work.Edits {
		if sameFile(e.File, asked, r.Project) {
			out = append(out, e)
		}
	}
	return out
}
