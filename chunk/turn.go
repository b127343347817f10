package chunk

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// Turn is one exchange of a session: a user message, the assistant messages
// that answer it, and the files and commands aider recorded meanwhile.
type Turn struct {
	// Index is the turn's number in its session, from 0. An answer or
	// record before the session's first user message is turn -1.
	Index int
	// Line is the 1-based line in the history file where the turn starts,
	// so the turn can be opened again.
	Line      int
	User      string
	Assistant string
	// Files and Commands are the turn's records, in file order, without
	// repeats.
	Files    []string
	Commands []string
	// Actions is how the turn touched each of Files (same positions): the
	// strongest of its records for that file, empty when the harness did
	// not say.
	Actions []harness.FileAction
	// Work is the outcomes and edit spans the harness recorded, per run
	// and per edit (not deduplicated as Files and Commands are).
	Work Work
	// Time is when the turn's first message was written, zero when the
	// harness records no message times.
	Time time.Time
}

// Turns groups a session's messages and records into turns, in order. A
// turn with neither text nor records is left out.
func Turns(s harness.Session) []Turn {
	var turns []Turn
	at := map[int]int{} // turn index → position in turns
	get := func(index, line int) *Turn {
		if i, ok := at[index]; ok {
			t := &turns[i]
			if t.Line == 0 || (line > 0 && line < t.Line) {
				t.Line = line
			}
			return t
		}
		at[index] = len(turns)
		turns = append(turns, Turn{Index: index, Line: line})
		return &turns[len(turns)-1]
	}
	for _, m := range s.Messages {
		t := get(m.Turn, m.Line)
		if t.Time.IsZero() && !m.Time.IsZero() {
			t.Time = m.Time
		}
		if m.Time.After(t.Work.End) {
			t.Work.End = m.Time
		}
		text := strings.TrimSpace(m.Text)
		if text == "" {
			continue
		}
		switch m.Role {
		case harness.User:
			t.User = join(t.User, text)
		case harness.Assistant:
			t.Assistant = join(t.Assistant, text)
		}
	}
	// seen holds where each turn lists each record: a turn of 300,000
	// records compared each with all before it took minutes to index.
	seen := map[recordKey]int{}
	seq := map[int]int{} // turn index → records of it so far
	for _, r := range s.Records {
		t := get(r.Turn, r.Line)
		v := strings.TrimSpace(r.Value)
		if v == "" {
			continue
		}
		t.Work.addRecord(r, v, seq[r.Turn])
		seq[r.Turn]++
		if r.Action == harness.Edited && r.Outcome.Status == harness.Failed {
			// An edit its harness refused or could not apply changed
			// nothing: the file was only looked at. Work keeps the
			// failed edit.
			r.Action = harness.Read
		}
		key := recordKey{r.Turn, r.Kind, v}
		i, ok := seen[key]
		switch {
		case r.Kind == harness.FileRecord && ok:
			// Read, then edited, is edited.
			if actionRank(r.Action) > actionRank(t.Actions[i]) {
				t.Actions[i] = r.Action
			}
		case r.Kind == harness.FileRecord:
			seen[key] = len(t.Files)
			t.Files = append(t.Files, v)
			t.Actions = append(t.Actions, r.Action)
		case r.Kind == harness.CommandRecord && !ok:
			seen[key] = len(t.Commands)
			t.Commands = append(t.Commands, v)
		}
	}
	kept := turns[:0]
	for i := range turns {
		if turns[i].Work.Empty() {
			turns[i].Work.End = time.Time{} // no work, nothing to date
		}
	}
	for _, t := range turns {
		if t.User != "" || t.Assistant != "" || len(t.Files) > 0 || len(t.Commands) > 0 {
			kept = append(kept, t)
		}
	}
	sortByIndex(kept)
	return kept
}

// BareHash is the turn's hash without its work: what a store written
// before records carried outcomes and spans holds for it.
func (t Turn) BareHash() string {
	t.Work = Work{}
	return t.Hash()
}

// Hash fingerprints everything a turn stores, so a re-read turn whose
// content did not change keeps its vectors.
func (t Turn) Hash() string {
	h := sha256.New()
	for _, s := range []string{t.User, t.Assistant, strings.Join(t.Files, "\n"), strings.Join(t.Commands, "\n")} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	// Work counts only where there is some, so the turns of a store made
	// before outcomes were recorded keep their hashes (and vectors).
	if w := t.Work.Encode(); w != "" {
		h.Write([]byte(w))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// recordKey is a record as a turn lists it: once per turn, kind and value.
type recordKey struct {
	turn  int
	kind  harness.RecordKind
	value string
}

func actionRank(a harness.FileAction) int {
	switch a {
	case harness.Edited:
		return 3
	case harness.Added:
		return 2
	case harness.Read:
		return 1
	}
	return 0
}

// sortByIndex orders turns by index, keeping the order of equal ones. The
// input is almost always in order already; a stable sort stays
// O(n log n) when it is not, where insertion sort was quadratic.
func sortByIndex(ts []Turn) {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Index < ts[j].Index })
}
