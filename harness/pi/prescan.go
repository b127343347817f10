package pi

import (
	"io"

	"github.com/deja-dev/deja/harness"
)

// A tool call makes a record only once its result says it ran, and the
// result is written after the call (see the package documentation), so a
// parse alone knows no turn's records before the end, and a 1 GB
// transcript held its text whole. Prescan reads, without the messages'
// text, every result and whether it was an error, and the header; the
// parse that follows builds each turn as it reads it and hands over
// every turn before the one being read.

// prescanTag opens what Prescan returns.
const prescanTag = "pi results 1"

var (
	_ harness.Prescanner  = Reader{}
	_ harness.PieceParser = (*parser)(nil)
)

// prescanTop is what Prescan found besides the results.
type prescanTop struct {
	ID, Cwd, Timestamp, ParentSession string
	Seen                              bool
	Lines                             int
}

// Prescan reads r (bounded by the indexer's LineBound) for its header and
// tool results: by each result's call, as its harness.Key, 1 for an
// error, 0 for none.
func (Reader) Prescan(r io.Reader) (string, error) {
	p := newParser(Options{Path: "prescan"})
	p.skim = true
	lines, err := harness.PrescanLines(r, p.Line)
	if err != nil {
		return "", err
	}
	h := p.head
	return harness.EncodePrescan(prescanTag, prescanTop{h.id, h.cwd, h.timestamp, h.parentSession, h.seen, lines}, harness.AppendKeys(nil, p.results))
}

// prescanned sets p up from what Prescan found; false, leaving p as it
// was, for anything else.
func (p *parser) prescanned(found string) bool {
	var top prescanTop
	tail, ok := harness.DecodePrescan(found, prescanTag, &top)
	if !ok || !harness.ReadKeys(tail, p.results) {
		return false
	}
	p.head = header{id: top.ID, cwd: top.Cwd, timestamp: top.Timestamp, parentSession: top.ParentSession, seen: top.Seen}
	p.ran, p.lines = true, top.Lines
	return true
}
