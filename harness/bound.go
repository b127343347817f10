package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
)

// MaxLine is the longest line of a history handed to a reader: a longer
// one (a JSONL record, a Markdown line) is skipped with a warning as it is
// read, before it is held whole. A 1 GB line read whole and then refused
// cost 6.2-7.4 GB of memory; the longest lines agents write (a file read,
// a command's output) are a few MB.
const MaxLine = 64 << 20

// MaxDecoded bounds the decoded bytes of an encoded history (a Codex
// .jsonl.zst rollout), counted as they are decoded: a 786 KB file can
// decode to 8 GB. The largest rollouts seen are tens of MB.
const MaxDecoded = 256 << 20

// Limits bound what a reader is handed of one history; a zero field
// means its constant (MaxLine, MaxDecoded). Tests lower them to stay
// small.
type Limits struct {
	Line    int
	Decoded int64
}

func (l Limits) line() int {
	if l.Line > 0 {
		return l.Line
	}
	return MaxLine
}

func (l Limits) decoded() int64 {
	if l.Decoded > 0 {
		return l.Decoded
	}
	return MaxDecoded
}

// LineBound reads another reader's bytes less the lines longer than its
// bound: such a line's bytes are dropped as they are read, its line end
// kept so the lines after it keep their numbers. It holds at most one
// line of the bound, in pieces (growing one buffer to the bound left
// each smaller one behind: 300 MB resident for a 64 MB bound). Offsets
// after a dropped line are of the bytes it hands on, not of the file.
type LineBound struct {
	r   *bufio.Reader
	max int
	// line is the current line's pieces not yet handed on, out the rest
	// of the one being handed on.
	line [][]byte
	out  []byte
	n    int
	err  error
	warn Warnings
}

// NewLineBound reads r through the bound of lim; r starts after the
// history's first before lines, so warnings name lines of the history.
func NewLineBound(r io.Reader, lim Limits, before int) *LineBound {
	return &LineBound{r: bufio.NewReaderSize(r, 64<<10), max: lim.line(), n: before}
}

// Read hands on the bytes of whole lines not over the bound.
func (b *LineBound) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		switch {
		case len(b.line) > 0:
			b.out, b.line = b.line[0], b.line[1:]
		case b.err != nil:
			return 0, b.err
		default:
			b.next()
		}
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

// next reads the next line into line, or only its line end when it is
// longer than the bound.
func (b *LineBound) next() {
	b.n++
	size := 0
	var line [][]byte
	for {
		chunk, err := b.r.ReadSlice('\n')
		if size+len(chunk) > b.max {
			b.warn.Add("longer than "+sizeOf(int64(b.max)), b.n)
			if end := b.skip(chunk, err); end != nil {
				b.line = [][]byte{end}
			}
			return
		}
		size += len(chunk)
		if !errors.Is(err, bufio.ErrBufferFull) {
			// The last piece is handed on before the next read
			// overwrites it, so it is not copied: most lines are one
			// piece, and copying each doubled what reading allocated.
			if line == nil {
				b.out, b.err = chunk, err
			} else {
				b.line, b.err = append(line, chunk), err
			}
			return
		}
		line = append(line, bytes.Clone(chunk))
	}
}

// skip drops the rest of an over-long line whose last read was chunk,
// and returns its line end.
func (b *LineBound) skip(chunk []byte, err error) []byte {
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = b.r.ReadSlice('\n')
	}
	b.err = err
	if bytes.HasSuffix(chunk, []byte("\n")) {
		return []byte("\n")
	}
	return nil
}

// Warnings are the lines dropped, one line per kind: "1 line longer than
// 64 MB (first at line 3), skipped".
func (b *LineBound) Warnings() []string { return b.warn.List() }

// ErrTooLarge is wrapped by ReadAll's error for a history refused whole.
var ErrTooLarge = errors.New("history too large to read")

// ReadAll reads a history that its reader parses whole, through the
// bounds of lim: its lines through a LineBound, its decoded bytes (dec
// decoding it, when set) counted before they are kept, and a .json
// history, which is one JSON record, no larger than a line. It returns
// the bytes, the warnings for what it dropped, and an error wrapping
// ErrTooLarge for a history refused whole. f is read from its start.
func ReadAll(path string, f io.ReadSeeker, dec Decoder, lim Limits) ([]byte, []string, error) {
	var r io.Reader = f
	// size is what the history holds, so that its bytes are read into a
	// buffer of their size: io.ReadAll grows one by half again and again,
	// and a 250 MB history read so peaked near twice its size.
	var size int64
	if dec != nil {
		n, err := decodedSize(path, f, dec, lim.decoded())
		if err != nil {
			return nil, nil, err
		}
		if n > lim.decoded() {
			return nil, nil, fmt.Errorf("%w: it decodes to more than %s", ErrTooLarge, sizeOf(lim.decoded()))
		}
		size = n
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil, err
		}
		rc, err := dec.Decode(path, f)
		if err != nil {
			return nil, nil, err
		}
		defer rc.Close()
		r = rc
	} else {
		end, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, nil, err
		}
		size = end
		if filepath.Ext(path) == ".json" && end > int64(lim.line()) {
			return nil, nil, fmt.Errorf("%w: one JSON record of more than %s", ErrTooLarge, sizeOf(int64(lim.line())))
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil, err
		}
	}
	lb := NewLineBound(r, lim, 0)
	// MinRead to spare: the read that finds the end must not grow it. A
	// file that is mostly a line too long to keep reserves no more than
	// the decoded bound.
	buf := bytes.NewBuffer(make([]byte, 0, min(size, lim.decoded())+bytes.MinRead))
	if _, err := buf.ReadFrom(lb); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), lb.Warnings(), nil
}

// decodedSize decodes f from its start, keeping nothing, and returns how
// many bytes it decodes to, counting no further than max+1.
func decodedSize(path string, f io.Reader, dec Decoder, max int64) (int64, error) {
	rc, err := dec.Decode(path, f)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return io.Copy(io.Discard, io.LimitReader(rc, max+1))
}

// sizeOf writes a bound in MB (or in bytes, for a test's small ones).
func sizeOf(n int64) string {
	if n >= 1<<20 {
		return strconv.FormatInt(n>>20, 10) + " MB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
