package recall

import (
	"context"
	"slices"
	"strings"

	"github.com/deja-dev/deja/harness/note"
	"github.com/deja-dev/deja/memory/store"
)

// Mark is a person's or an agent's verdict on a recalled turn's session or
// the turn itself ('deja mark'): every later result from it carries it.
type Mark struct {
	Verdict string // note.Accepted or note.Rejected
	Target  string // SESSION or SESSION/TURN, as marked
	Why     string
	// By is the note that holds the mark ('deja forget' of it unmarks).
	By string
	// from is who sent the note when a team folded it in (USER@MACHINE).
	from string
}

// attachMarks gives each result the newest mark of its turn, or else of
// its session. Marks are notes ('note' sessions) whose text opens with
// note's mark line; a store has few.
func attachMarks(ctx context.Context, s *store.Store, results []Result) error {
	if len(results) == 0 {
		return nil
	}
	marks, err := loadMarks(ctx, s)
	if err != nil || len(marks) == 0 {
		return err
	}
	for i := range results {
		r := &results[i]
		// The newest mark of the turn, else of its session. A team
		// member's mark judges that member's own sessions only: no one
		// else's verdict is pinned on this machine's turns.
		for _, target := range []string{store.TurnRef(r.SessionID, r.Turn), r.SessionID} {
			for _, m := range slices.Backward(marks[target]) {
				if m.from == "" || m.from == r.From {
					r.Mark = m
					break
				}
			}
			if r.Mark != nil {
				break
			}
		}
	}
	return nil
}

// loadMarks reads the marks once until the store changes (the recall
// cache's Invalidate): every recall asks for them.
func loadMarks(ctx context.Context, s *store.Store) (map[string][]*Mark, error) {
	c := rc(s)
	c.mu.Lock()
	marks := c.marks
	c.mu.Unlock()
	if marks != nil {
		return marks, nil
	}
	// Notes' IDs begin "note-": the primary key's range finds them
	// without reading every session.
	rows, err := s.Read().QueryContext(ctx, `SELECT s.id, s.path, t.user FROM sessions s JOIN turns t ON t.session_id = s.id
		WHERE s.id >= ? AND s.id < ? AND s.harness = ? AND t.turn = 0 ORDER BY s.started_ns, s.id`, note.Name+"-", note.Name+".", note.Name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	marks = map[string][]*Mark{} // oldest first
	for rows.Next() {
		var id, path, text string
		if err := rows.Scan(&id, &path, &text); err != nil {
			return nil, err
		}
		if verdict, target, why, ok := note.ReadMark(text); ok {
			marks[target] = append(marks[target], &Mark{Verdict: verdict, Target: target, Why: why, By: id, from: store.FromOf(path)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.marks = marks
	c.mu.Unlock()
	return marks, nil
}

// noteAhead is how close a note's score must come to the turn ranked
// just above it to go before it: a note is what someone chose to keep,
// so of two answers about as relevant it is the better one.
const noteAhead = 0.9

// notesFirst moves each note ahead of the turns of agents' sessions ranked
// just above it whose scores it comes within noteAhead of.
func notesFirst(results []Result) {
	isNote := func(r Result) bool { return strings.HasPrefix(r.SessionID, note.Name+"-") }
	for i := len(results) - 2; i >= 0; i-- {
		a, b := results[i], results[i+1]
		if isNote(b) && !isNote(a) && a.Score > 0 && b.Score >= noteAhead*a.Score {
			results[i], results[i+1] = b, a
		}
	}
}
