package pi

import (
	"encoding/binary"
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
// tool results: each result's call as its harness.Key and a byte, 1 for
// an error.
func (Reader) Prescan(r io.Reader) (string, error) {
	p := newParser(Options{Path: "prescan"})
	p.skim = true
	lines, err := harness.PrescanLines(r, p.Line)
	if err != nil {
		return "", err
	}
	tail := make([]byte, 0, len(p.results)*17)
	for k, failed := range p.results {
		tail = binary.LittleEndian.AppendUint64(tail, k[0])
		tail = binary.LittleEndian.AppendUint64(tail, k[1])
		b := byte(0)
		if failed {
			b = 1
		}
		tail = append(tail, b)
	}
	h := p.head
	return harness.EncodePrescan(prescanTag, prescanTop{h.id, h.cwd, h.timestamp, h.parentSession, h.seen, lines}, tail)
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
		p.results[k] = tail[16] == 1
	}
	p.head = header{id: top.ID, cwd: top.Cwd, timestamp: top.Timestamp, parentSession: top.ParentSession, seen: top.Seen}
	p.ran, p.lines = true, top.Lines
	return true
}
