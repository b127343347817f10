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
	// Output is what the command printed, bounded by ClipOutput (and in
	// the store, once redacted, by StoredOutput); empty where the harness
	// kept none.
	Output string
}

// Known reports whether the harness recorded anything of how the call
// ended.
func (o Outcome) Known() bool { return o.Status != "" || o.Exit != nil || o.Output != "" }

// Span is what an edit replaced, where the harness records it: the old
// and new text of a string replacement or patch hunk, or the whole new
// content of a file written (Whole, Old empty). Old and New are bounded
// by ClipSpan (in the store, once redacted, by StoredSpan); Clipped says
// one of them lost its middle, so the old text cannot be restored from it.
type Span struct {
	Old, New string
	Whole    bool
	Clipped  bool
}

// Recorded reports whether the span holds any text.
func (s Span) Recorded() bool { return s.Old != "" || s.New != "" }

// Bounds of what a record keeps of a call's output and of an edit's text.
// A reader bounds what it holds (ClipOutput, ClipSpan: generous, so that
// a secret is never cut in two where the store's cut falls); the index
// redacts the whole of it and only then cuts it to what the store keeps
// (StoredOutput, StoredSpan): a secret cut before redaction could no
// longer be recognised, and its tail would be kept.
const (
	// OutputHead and OutputTail are the bytes of output the store keeps
	// from each end; the middle is replaced by a line saying how much was
	// left out. Enough to recognise an error and its cause.
	OutputHead = 600
	OutputTail = 900
	// SpanMax is the longest old or new text an edit keeps whole in the
	// store, enough to restore an ordinary edit.
	SpanMax = 16 << 10
	// ReadOutput and ReadSpan bound what a reader holds of one output and
	// of one edit's text, head and tail halves.
	ReadOutput = 64 << 10
	ReadSpan   = 256 << 10
)

// ClipOutput bounds a command's output as a reader holds it: whole up to
// ReadOutput bytes, else its two ends with a line saying how much was
// left out between; surrounding line ends are trimmed. The index cuts it
// further (StoredOutput) after redacting it.
func ClipOutput(s string) string {
	s = strings.Trim(s, "\r\n")
	out, _ := clip(s, ReadOutput/2, ReadOutput/2)
	return out
}

// StoredOutput is a redacted output cut to what the store keeps: its
// first OutputHead and last OutputTail bytes, cut at line ends where one
// is near and never inside a UTF-8 character.
func StoredOutput(s string) string {
	out, _ := clip(s, OutputHead, OutputTail)
	return out
}

// ClipSpan bounds an edit's text as a reader holds it, and says whether
// it cut; the index cuts it further (StoredSpan) after redacting it.
func ClipSpan(s string) (string, bool) { return clip(s, ReadSpan/2, ReadSpan/2) }

// StoredSpan is a redacted edit text as the store keeps it: whole up to
// SpanMax bytes, else its ends, and whether it cut (the old text can then
// not be restored).
func StoredSpan(s string) (string, bool) { return clip(s, SpanMax/2, SpanMax/2) }

// clip is s whole when it is at most head+tail bytes, else its first
// head and last tail bytes around a line saying what was left out.
func clip(s string, head, tail int) (string, bool) {
	if len(s) <= head+tail {
		return s, false
	}
	h := cutBack(s[:head])
	t := cutFront(s[len(s)-tail:])
	left := s[len(h) : len(s)-len(t)]
	return h + "\n[… " + strconv.Itoa(strings.Count(left, "\n")+1) + " lines, " + strconv.Itoa(len(left)) + " bytes left out …]\n" + t, true
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
	case len(o.Output) > ReadOutput+80:
		return errors.New("output of " + strconv.Itoa(len(o.Output)) + " bytes")
	case len(sp.Old) > ReadSpan+80 || len(sp.New) > ReadSpan+80:
		return errors.New("span over its bound")
	case r.Kind == CommandRecord && sp.Recorded():
		return errors.New("a command with an edit span")
	case sp.Whole && sp.Old != "":
		return errors.New("a whole-file span with old text")
	}
	return nil
}
