// Package note reads the notes and marks deja itself keeps: what a person
// or an agent asked deja to remember ('deja remember', the MCP remember
// tool) and their verdicts on past sessions ('deja mark'). They are a
// history like any agent's, a JSON object a line in notes.jsonl in deja's
// data directory, each line one session of one turn, so they are
// redacted, embedded, recalled, forgotten and shared with a team as
// turns are.
package note

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// Name is the harness name of notes.
const Name = "note"

// FileName is the notes history's name in the data directory.
const FileName = "notes.jsonl"

// Verdicts a mark gives a session or turn.
const (
	Accepted = "accepted"
	Rejected = "rejected"
)

// Line is one note as notes.jsonl holds it.
type Line struct {
	// Note is always 1: it tells the file from any other JSONL.
	Note    int       `json:"deja_note"`
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Project string    `json:"project,omitempty"`
	Tags    []string  `json:"tags,omitempty"`
	Text    string    `json:"text"`
	// Mark, when set, makes the note a verdict on a session or turn.
	Mark *Mark `json:"mark,omitempty"`
}

// Mark is a verdict on a past session or turn: Target is SESSION or
// SESSION/TURN.
type Mark struct {
	Target  string `json:"target"`
	Verdict string `json:"verdict"`
}

// markPrefix opens the text of a mark's turn: what recall reads back to
// say a result was marked, and what a person reads in the note.
const markPrefix = "[deja mark] "

// NewID is a note's ID: 16 random hex digits.
func NewID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand does not fail
	return hex.EncodeToString(b)
}

// Encode is the line as notes.jsonl holds it, with its newline.
func (l Line) Encode() ([]byte, error) {
	l.Note = 1
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// SessionID is the ID of the session a note's line becomes.
func SessionID(id string) string { return Name + "-" + id }

// TurnText is the text a note's turn holds: the note, its tags, and for a
// mark the verdict and target first.
func (l Line) TurnText() string {
	var b strings.Builder
	text := strings.TrimSpace(l.Text)
	if l.Mark != nil {
		fmt.Fprintf(&b, "%s%s %s\n", markPrefix, l.Mark.Verdict, l.Mark.Target)
	} else if strings.HasPrefix(text, strings.TrimSpace(markPrefix)) {
		// A note's text that reads as a mark (typed, or handed to the
		// remember tool by an agent) is a note that says so, never a
		// verdict: only 'deja mark' writes one.
		b.WriteString("note: ")
	}
	b.WriteString(text)
	if len(l.Tags) > 0 {
		b.WriteString("\ntags: " + strings.Join(l.Tags, ", "))
	}
	return b.String()
}

// ReadMark reads a mark back from a note turn's text: its verdict, target
// and why; ok is false for a note that is no mark.
func ReadMark(text string) (verdict, target, why string, ok bool) {
	first, rest, _ := strings.Cut(text, "\n")
	head, found := strings.CutPrefix(first, markPrefix)
	if !found {
		return "", "", "", false
	}
	verdict, target, _ = strings.Cut(head, " ")
	if verdict != Accepted && verdict != Rejected || target == "" {
		return "", "", "", false
	}
	why = strings.TrimSpace(rest)
	if i := strings.LastIndex(why, "\ntags: "); i >= 0 {
		why = why[:i]
	}
	return verdict, target, why, true
}

// Reader reads notes.jsonl.
type Reader struct{}

var _ harness.FileReader = Reader{}

func (Reader) Name() string { return Name }

// Discover finds nothing: the notes file is indexed when a note is added,
// and every later 'deja index' reads it again as a history it knows.
func (Reader) Discover(harness.DiscoverOptions) harness.Discovery { return harness.Discovery{} }

func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, Name+"-")
	return ok && harness.IsHex(rest, 16)
}

func (Reader) Sniff(path string, head []byte) error {
	if filepath.Base(path) != FileName {
		return errors.New("not deja's notes (" + FileName + ")")
	}
	if len(bytes.TrimSpace(head)) > 0 && !bytes.Contains(head, []byte(`"deja_note"`)) {
		return errors.New("a " + FileName + " that deja did not write")
	}
	return nil
}

// Parse reads each line as one session of one turn: the note's text as
// the question, no answer. A line that is not a note is counted.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	h := &harness.History{Path: opts.Path}
	var warn harness.Warnings
	ordinal := max(opts.FirstOrdinal, 1)
	off := 0
	for n := 1; off < len(data); n++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			break // a line still being written
		}
		line := data[off : off+end]
		start := off
		off += end + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l Line
		if err := json.Unmarshal(line, &l); err != nil || l.Note != 1 || !harness.IsHex(l.ID, 16) || strings.TrimSpace(l.TurnText()) == "" {
			warn.Add("that is not a note", n)
			continue
		}
		text := l.TurnText()
		h.Sessions = append(h.Sessions, harness.Session{
			ID: SessionID(l.ID), Ordinal: ordinal, Started: l.Time, Project: l.Project,
			Offset: opts.Offset + int64(start), End: opts.Offset + int64(off),
			Messages: []harness.Message{{Role: harness.User, Text: text, Turn: 0, Line: n, Time: l.Time}},
		})
		ordinal++
	}
	h.Warnings = warn.List()
	return h
}
