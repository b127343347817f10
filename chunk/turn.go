package chunk

import (
	"crypto/sha256"
	"encoding/hex"
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
	for _, r := range s.Records {
		t := get(r.Turn, r.Line)
		switch r.Kind {
		case harness.FileRecord:
			t.addFile(r.Value, r.Action)
		case harness.CommandRecord:
			t.Commands = appendNew(t.Commands, r.Value)
		}
	}
	kept := turns[:0]
	for _, t := range turns {
		if t.User != "" || t.Assistant != "" || len(t.Files) > 0 || len(t.Commands) > 0 {
			kept = append(kept, t)
		}
	}
	sortByIndex(kept)
	return kept
}

// Hash fingerprints everything a turn stores, so a re-read turn whose
// content did not change keeps its vectors.
func (t Turn) Hash() string {
	h := sha256.New()
	for _, s := range []string{t.User, t.Assistant, strings.Join(t.Files, "\n"), strings.Join(t.Commands, "\n")} {
		h.Write([]byte(s))
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

// addFile adds a file record, or strengthens the action of a file the
// turn already names (read, then edited, is edited).
func (t *Turn) addFile(v string, action harness.FileAction) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	for i, x := range t.Files {
		if x == v {
			if actionRank(action) > actionRank(t.Actions[i]) {
				t.Actions[i] = action
			}
			return
		}
	}
	t.Files = append(t.Files, v)
	t.Actions = append(t.Actions, action)
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

func appendNew(list []string, v string) []string {
	v = strings.TrimSpace(v)
	if v == "" {
		return list
	}
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// sortByIndex orders turns by index; insertion sort, as the input is
// almost always in order already.
func sortByIndex(ts []Turn) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Index < ts[j-1].Index; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}
