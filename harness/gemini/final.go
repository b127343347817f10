package gemini

import (
	"encoding/binary"
	"errors"
	"io"
	"sort"

	"github.com/deja-dev/deja/harness"
)

// A JSONL recording is one session whose every message a later line can
// rewrite: a record re-appended with the same id replaces it in place, a
// "$rewindTo" drops it and all after it, a "$set" checkpoint rebuilds the
// conversation. So no turn is final until the last line, and a 1 GB
// recording held its text whole (1.26 GB of memory). Prescan replays the
// recording once without the text, keeping of each record only where its
// last copy lies (a ref); the parse that follows then knows, as it reads
// each line, which records it holds are final and in which place, and
// hands over every turn before the one being read (harness.PieceParser).

// ref is where a record lies: the line, counted from where the reading
// starts, and its place among the records that line holds (a "$set"
// checkpoint holds many).
type ref struct{ line, at int }

func (r ref) before(o ref) bool { return r.line < o.line || r.line == o.line && r.at < o.at }

// prescanned opens what Prescan returns, so a parse fed anything else
// (another reader's prescan, a truncated string) is a whole parse.
const prescanned = "gemini final 1"

// maxHeld bounds the text a parse that knows the final conversation
// holds of records read before the ones that come earlier in it: past it,
// the earliest record not yet read is placed where its last copy is read,
// with a warning. The CLI re-appends a record only while it is the last
// (its tool calls finished), so a real recording holds a record or two.
const maxHeld = 64 << 20

var _ harness.Prescanner = Reader{}

// Prescan replays a JSONL recording read from r without the messages'
// text, bounded by the lines r hands on (the indexer hands them through
// harness.LineBound), and returns its final conversation as where each of
// its records lies, with the header and how many lines were read: the
// parse stops there, so a line written since cannot change a record it
// already handed over.
func (Reader) Prescan(r io.Reader) (string, error) {
	p := newParser(Options{})
	p.whole, p.skel = nil, &conversation[ref]{}
	lines, err := harness.PrescanLines(r, p.Line)
	if err != nil {
		return "", err
	}
	var refs []byte
	for _, r := range p.skel.entries {
		refs = binary.AppendUvarint(refs, uint64(r.line))
		refs = binary.AppendUvarint(refs, uint64(r.at))
	}
	return harness.EncodePrescan(prescanned, prescanTop{p.head, lines}, refs)
}

// prescanTop is what Prescan found besides the records.
type prescanTop struct {
	Head  header
	Lines int
}

// final is a parse's knowledge of the final conversation (see Prescan).
type final struct {
	// lines is how many lines Prescan read.
	lines int
	// refs are the final records in the order they lie, each with its
	// place in the conversation; next indexes the first not yet read.
	refs []placed
	next int
	// held are records read before their place's turn, by place (nil:
	// its line was read and did not hold it); bytes is their text.
	held  map[int]*entry
	bytes int
	max   int
	// place is the next place to hand to the builder.
	place, places int
}

type placed struct {
	ref
	place int
}

var errPrescan = errors.New("not a Gemini prescan")

// openFinal reads what Prescan returned into a final and the header.
func openFinal(s string) (*final, header, error) {
	var top prescanTop
	refs, ok := harness.DecodePrescan(s, prescanned, &top)
	if !ok {
		return nil, header{}, errPrescan
	}
	f := &final{lines: top.Lines, held: map[int]*entry{}, max: maxHeld}
	for len(refs) > 0 {
		line, n := binary.Uvarint(refs)
		if n <= 0 {
			return nil, header{}, errPrescan
		}
		at, m := binary.Uvarint(refs[n:])
		if m <= 0 {
			return nil, header{}, errPrescan
		}
		refs = refs[n+m:]
		f.refs = append(f.refs, placed{ref{int(line), int(at)}, len(f.refs)})
	}
	f.places = len(f.refs)
	// sort.Slice, not slices.SortFunc: the same algorithm and order,
	// without a generic copy of it for this type in the binary.
	sort.Slice(f.refs, func(i, j int) bool { return f.refs[i].before(f.refs[j].ref) })
	return f, top.Head, nil
}

// take takes the record e, read at r on line n: held until the records
// before it are read when it is final, dropped when a later copy or line
// replaces it.
func (f *final) take(p *parser, r ref, e entry, n int) {
	f.skip(r)
	if f.next == len(f.refs) || f.refs[f.next].ref != r {
		return
	}
	place := f.refs[f.next].place
	f.next++
	if place < f.place {
		// Past maxHeld, its place was passed: it goes where it is read.
		p.warn.add("a record rewritten after more than 64 MB of later ones is placed where it was rewritten", n)
		p.add(e)
		return
	}
	f.held[place] = &e
	f.bytes += size(e)
}

// skip notes as read, and not holding theirs, the places whose records
// lie before r: their line was read and did not yield them (a line
// written again since Prescan read it).
func (f *final) skip(r ref) {
	for f.next < len(f.refs) && f.refs[f.next].before(r) {
		if place := f.refs[f.next].place; place >= f.place {
			f.held[place] = nil
		}
		f.next++
	}
}

// passed hands the builder, after a line, every record whose place comes
// next and is read, and passes places when more than max bytes are held.
func (f *final) passed(p *parser) {
	for {
		for f.place < f.places {
			e, ok := f.held[f.place]
			if !ok {
				break
			}
			delete(f.held, f.place)
			if e != nil {
				f.bytes -= size(*e)
				p.add(*e)
			}
			f.place++
		}
		if f.bytes <= f.max || f.place == f.places {
			return
		}
		f.place++
	}
}

// drain hands the builder every record still held, at the end.
func (f *final) drain(p *parser) {
	for ; f.place < f.places; f.place++ {
		if e := f.held[f.place]; e != nil {
			p.add(*e)
		}
	}
	f.held, f.bytes = nil, 0
}

// size is about what a held record costs.
func size(e entry) int {
	n := len(e.text) + 64
	for _, c := range e.calls {
		n += len(c.Name) + len(c.Status) + len(c.Args.FilePath) + len(c.Args.AbsolutePath) + len(c.Args.Path) + len(c.Args.Command) + 64
		for _, p := range c.Args.Paths {
			n += len(p) + 16
		}
	}
	return n
}
