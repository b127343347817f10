package chunk

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

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
			t.Files = appendNew(t.Files, r.Value)
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
