package copilot

import (
	"encoding/binary"
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
const prescanTag = "copilot outcomes 1"

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
// ID, project and start and every tool call's outcome: its harness.Key
// and a byte of outcome bits.
func (Reader) Prescan(r io.Reader) (string, error) {
	p := newParser(harness.ParseOptions{})
	p.skim = true
	lines, err := harness.PrescanLines(r, p.Line)
	if err != nil {
		return "", err
	}
	tail := make([]byte, 0, len(p.outcome)*17)
	for k, out := range p.outcome {
		tail = binary.LittleEndian.AppendUint64(tail, k[0])
		tail = binary.LittleEndian.AppendUint64(tail, k[1])
		tail = append(tail, out)
	}
	return harness.EncodePrescan(prescanTag, prescanTop{p.sessionID, p.project, p.started, lines}, tail)
}

// prescanned sets p up from what Prescan found; false, leaving p as it
// was, for anything else.
func (p *parser) prescanned(found string) bool {
	var top prescanTop
	tail, ok := harness.DecodePrescan(found, prescanTag, &top)
	if !ok || len(tail)%17 != 0 {
		return false
	}
	for ; len(tail) > 0; tail = tail[17:] {
		k := harness.Key{binary.LittleEndian.Uint64(tail), binary.LittleEndian.Uint64(tail[8:])}
		p.outcome[k] = tail[16]
	}
	p.sessionID, p.project, p.started = top.SessionID, top.Project, top.Started
	p.known, p.lines = true, top.Lines
	return true
}
