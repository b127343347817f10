package harness

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Status says how a record's tool call ended, where the harness records
// it: a command's exit or the harness's own error mark, an edit applied
// or refused.
type Status string

// A record's status; empty when the harness did not record how it ended.
const (
	Succeeded Status = "ok"
	Failed    Status = "failed"
)

// Outcome is how a record's tool call ended. Readers fill what their
// harness writes and leave the rest zero: Status alone (a success flag),
// Exit (an exit status), Output (what the command printed).
type Outcome struct {
	Status Status
	// Exit is the command's exit status, nil where the harness does not
	// record one.
	Exit *int
	// Output is the head and tail of what the command printed, cut by
	// ClipOutput; empty where the harness kept none.
	Output string
}

// Known reports whether the harness recorded anything of how the call
// ended.
func (o Outcome) Known() bool { return o.Status != "" || o.Exit != nil || o.Output != "" }

// Span is what an edit replaced, where the harness records it: the old
// and new text of a string replacement or patch hunk, or the whole new
// content of a file written (Whole, Old empty). Old and New are cut by
// ClipSpan; Clipped says one of them lost its middle, so the old text
// cannot be restored from it.
type Span struct {
	Old, New string
	Whole    bool
	Clipped  bool
}

// Recorded reports whether the span holds any text.
func (s Span) Recorded() bool { return s.Old != "" || s.New != "" }

// Bounds of what a record keeps of a call's output and of an edit's text:
// enough to recognise an error and its cause, and to restore an ordinary
// edit, while a turn stays small beside its words.
const (
	// OutputHead and OutputTail are the bytes of output kept from each
	// end; the middle is replaced by a line saying how much was left out.
	OutputHead = 600
	OutputTail = 900
	// SpanMax is the longest old or new text an edit record keeps whole.
	SpanMax = 16 << 10
)

// ClipOutput returns a command's output with its middle left out when it
// is longer than OutputHead+OutputTail bytes, cut at line ends where one
// is near and never inside a UTF-8 character; surrounding blank lines
// and a trailing newline are trimmed.
func ClipOutput(s string) string {
	s = strings.Trim(s, "\r\n")
	if len(s) <= OutputHead+OutputTail {
		return s
	}
	head := cutBack(s[:OutputHead])
	tail := cutFront(s[len(s)-OutputTail:])
	left := s[len(head) : len(s)-len(tail)]
	return head + "\n[… " + strconv.Itoa(strings.Count(left, "\n")+1) + " lines, " + strconv.Itoa(len(left)) + " bytes left out …]\n" + tail
}

// ClipSpan returns an edit's text whole when it is at most SpanMax bytes,
// else its head and tail, and whether it cut.
func ClipSpan(s string) (string, bool) {
	if len(s) <= SpanMax {
		return s, false
	}
	head := cutBack(s[:SpanMax/2])
	tail := cutFront(s[len(s)-SpanMax/2:])
	return head + "\n[… " + strconv.Itoa(len(s)-len(head)-len(tail)) + " bytes left out …]\n" + tail, true
}

// cutBack shortens a head to its last line end when one is in its last
// quarter, and never leaves half a character.
func cutBack(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= len(s)*3/4 {
		return s[:i]
	}
	for range utf8.UTFMax - 1 {
		if r, n := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || n != 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}

// cutFront shortens a tail to after its first line end when one is in its
// first quarter, and never starts inside a character.
func cutFront(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)/4 {
		return s[i+1:]
	}
	for range utf8.UTFMax - 1 {
		if len(s) == 0 || utf8.RuneStart(s[0]) {
			break
		}
		s = s[1:]
	}
	return s
}

// ExitStatus returns a pointer to code, for Outcome.Exit.
func ExitStatus(code int) *int { return &code }

// StatusOfExit is Succeeded for exit status 0 and Failed for any other.
func StatusOfExit(code int) Status {
	if code == 0 {
		return Succeeded
	}
	return Failed
}

// CheckOutcome reports a record whose outcome or span breaks what every
// reader keeps to: an output or span longer than its bound, a status that
// is not one of the two, an exit status whose status disagrees, a span on
// a command.
func CheckOutcome(r Record) error {
	o, sp := r.Outcome, r.Span
	switch {
	case o.Status != "" && o.Status != Succeeded && o.Status != Failed:
		return errors.New("status " + strconv.Quote(string(o.Status)))
	case o.Exit != nil && o.Status != StatusOfExit(*o.Exit):
		return errors.New("exit status " + strconv.Itoa(*o.Exit) + " with status " + strconv.Quote(string(o.Status)))
	case len(o.Output) > OutputHead+OutputTail+80:
		return errors.New("output of " + strconv.Itoa(len(o.Output)) + " bytes")
	case len(sp.Old) > SpanMax+80 || len(sp.New) > SpanMax+80:
		return errors.New("span over its bound")
	case r.Kind == CommandRecord && sp.Recorded():
		return errors.New("a command with an edit span")
	case sp.Whole && sp.Old != "":
		return errors.New("a whole-file span with old text")
	}
	return nil
}
