package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/note"
	"github.com/deja-dev/deja/memory/redact"
	"github.com/deja-dev/deja/memory/store"
)

// MaxNote bounds a note's text: a note is a finding or a decision, not a
// log (a turn holds those).
const MaxNote = 8000

// AddNote keeps a note (or, with l.Mark, a verdict on a past session or
// turn): it appends the note, redacted, to the notes history in the
// store's directory and indexes that history with opts (its Paths and
// Harnesses are set here), so the note is recalled at once. It returns the
// note's session ID. The text is redacted before it is written, so the
// notes file holds no secret either.
func AddNote(ctx context.Context, s *store.Store, opts Options, l note.Line) (string, error) {
	l.Text = strings.TrimSpace(l.Text)
	switch {
	case l.Text == "" && l.Mark == nil:
		return "", errors.New("the note is empty")
	case len(l.Text) > MaxNote:
		return "", fmt.Errorf("the note is %d bytes; keep it under %d (a note is a finding or a decision: 'deja index' keeps whole sessions)", len(l.Text), MaxNote)
	}
	l.Text, _ = redact.Text(l.Text)
	l.Project, _ = store.RedactPath(l.Project)
	for i, t := range l.Tags {
		l.Tags[i], _ = redact.Text(strings.TrimSpace(t))
	}
	if l.ID == "" {
		l.ID = note.NewID()
	}
	if l.Time.IsZero() {
		l.Time = time.Now().UTC().Truncate(time.Second)
	}
	line, err := l.Encode()
	if err != nil {
		return "", err
	}
	path := filepath.Join(s.Dir(), note.FileName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("keeping the note: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return "", fmt.Errorf("keeping the note: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("keeping the note: %w", err)
	}
	opts.Paths, opts.Harnesses = []string{path}, harness.Registry{note.Reader{}}
	rep, err := Index(ctx, s, opts)
	if err != nil {
		return "", err
	}
	if len(rep.Problems) > 0 {
		return "", fmt.Errorf("indexing the note: %s", strings.Join(rep.Problems, "; "))
	}
	return note.SessionID(l.ID), nil
}
