package store

import (
	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
	"slices"

	"github.com/deja-dev/deja/memory/redact"
)

// redactLines removes secrets from lines deja shows or sends about what it
// read: a problem or warning may quote a history (an ID of the wrong shape,
// an unknown record type, a path whose directory holds a cwd).
func RedactLines(lines []string) []string {
	for i, l := range lines {
		lines[i], _ = redact.Text(l)
	}
	return lines
}

// redactRemote removes secrets from turns a team sent, as redactSession
// does from a history read here: the sender's deja may redact less (an
// older version, or a member's own build), and its project, name and
// machine are stored and shown as its text is. Session and parent IDs
// and the harness are checked by ValidIDs; the subject is the server's.
func redactRemote(turns []RemoteTurn) []RemoteTurn {
	out := make([]RemoteTurn, len(turns))
	for i, t := range turns {
		t.Project, _ = RedactPath(t.Project)
		t.Person, _ = redact.Text(t.Person)
		t.Origin, _ = redact.Text(t.Origin)
		t.User, _ = redact.Text(t.User)
		t.Assist, _ = redact.Text(t.Assist)
		t.Files = RedactLines(slices.Clone(t.Files))
		t.Commands = RedactLines(slices.Clone(t.Commands))
		if t.Work != nil {
			w := RedactWork(*t.Work)
			t.Work = &w
		}
		out[i] = t
	}
	return out
}

// RedactWork removes secrets from every text of a turn's work (the
// commands, their output, the edits' files and spans) and holds it to the
// bounds deja's own index keeps (a team member's deja may send more). It
// returns a copy; w is left as it was.
func RedactWork(w chunk.Work) chunk.Work {
	if len(w.Runs) > chunk.MaxRuns {
		w.Dropped += len(w.Runs) - chunk.MaxRuns
		w.Runs = w.Runs[:chunk.MaxRuns]
	}
	if len(w.Edits) > chunk.MaxEdits {
		w.Dropped += len(w.Edits) - chunk.MaxEdits
		w.Edits = w.Edits[:chunk.MaxEdits]
	}
	w.Runs, w.Edits = slices.Clone(w.Runs), slices.Clone(w.Edits)
	for i := range w.Runs {
		r := &w.Runs[i]
		r.Command, _ = redact.Text(r.Command)
		r.Output, _ = redact.Text(r.Output)
		r.Output = harness.StoredOutput(r.Output)
	}
	for i := range w.Edits {
		e := &w.Edits[i]
		e.File, _ = redact.Text(e.File)
		e.Old, _ = redact.Text(e.Old)
		e.New, _ = redact.Text(e.New)
		var oldCut, newCut bool
		e.Old, oldCut = harness.StoredSpan(e.Old)
		e.New, newCut = harness.StoredSpan(e.New)
		e.Clipped = e.Clipped || oldCut || newCut
	}
	return w
}
