package copilot

import (
	"io"
	"time"

	"github.com/deja-dev/deja/harness"
)

// A tool call is a record or none by what later events say of it (its
// completion failed, it listed a directory, the user refused it), so a
// parse alone knows no turn's records before the end, and a 1 GB events
// file held its text whole (786 MB of memory). Prescan reads those
// outcomes, and the session's ID, project and start, without the text;
// the parse that follows makes each call a record as it reads it and
// hands over every turn before the one being read.

// prescanTag opens what Prescan returns.
const prescanTag = "copilot outcomes 2"

var (
	_ harness.Prescanner  = Reader{}
	_ harness.PieceParser = (*parser)(nil)
)

// prescanTop is what Prescan found besides the outcomes.
type prescanTop struct {
	SessionID, Project string
	Started            time.Time
	Lines              int
}

// Prescan reads r (bounded by the indexer's LineBound) for the session's
// ID, project and start and every tool call's outcome bits, by its
// harness.Key.
func (Reader) Prescan(r io.Reader) (string, error) {
	p := newParser(harness.ParseOptions{})
	p.skim = true
	lines, err := harness.PrescanLines(r, p.Line)
	if err != nil {
		return "", err
	}
	return harness.EncodePrescan(prescanTag, prescanTop{p.sessionID, p.project, p.started, lines}, harness.AppendKeys(nil, p.outcome))
}

// prescanned sets p up from what Prescan found; false, leaving p as it
// was, for anything else.
func (p *parser) prescanned(found string) bool {
	var top prescanTop
	tail, ok := harness.DecodePrescan(found, prescanTag, &top)
	if !ok || !harness.ReadKeys(tail, p.outcome) {
		return false
	}
	p.sessionID, p.project, p.started = top.SessionID, top.Project, top.Started
	p.known, p.lines = true, top.Lines
	return true
}
