package memory

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// Rewriting a segment (a compaction, a repair) streams it: the live
// vectors' keys and sessions come from the file's layout (layoutSegment,
// which checks every block), and their floats are copied from the old
// file into the new one a record at a time, in key order. Nothing holds
// the floats of the whole file. Loading the set and encoding it again as
// a block held them twice: a 1 GB Gemini recording whose turns had all
// moved took its re-index to 1.30 GB, against 0.34 GB for the first
// index, for a segment of a third of that.

// openLayout opens the segment file the ledger's row names and reads its
// layout. A file the ledger does not name yet (exists false), or an
// empty one, is an empty layout and no file. The caller closes the file.
// A file whose blocks do not all check out returns the layout of the
// blocks that do, with an errSegmentDamaged error.
func openLayout(path string, row segmentRow, exists bool) (*os.File, *segmentLayout, error) {
	if !exists || row.length == 0 {
		return nil, &segmentLayout{set: &vectorSet{}}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &segmentLayout{set: &vectorSet{}}, fmt.Errorf("%w: %v", errSegmentDamaged, err)
	}
	if fi, err := f.Stat(); err != nil || fi.Size() < row.length {
		f.Close()
		return nil, &segmentLayout{set: &vectorSet{}}, fmt.Errorf("%w: %s is shorter than the ledger's %d bytes", errSegmentDamaged, filepath.Base(path), row.length)
	}
	l, good := layoutSegment(f, row.length, int(row.records))
	if good != row.length {
		return f, l, fmt.Errorf("%w: %s fails its checksum at byte %d", errSegmentDamaged, filepath.Base(path), good)
	}
	return f, l, nil
}

// writeCompacted writes a new segment file at path: the layout's live
// vectors less drop, as one block in key order (none when none are left),
// their floats read from r, then tail (a block already encoded, or nil).
// It returns the file's length and how many records the first block holds.
func writeCompacted(path string, r io.ReaderAt, l *segmentLayout, drop []vectorKey, tail []byte) (int64, int, error) {
	set, dim := l.set, l.set.dim
	at := l.floatOffsets()
	drop = slices.Clone(drop)
	slices.SortFunc(drop, compareKeys)
	order := make([]int32, 0, set.len())
	for i, k := range set.keys {
		if _, gone := slices.BinarySearchFunc(drop, k, compareKeys); !gone {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int { return compareKeys(set.keys[a], set.keys[b]) })

	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, 0, err
	}
	w := &countingWriter{w: bufio.NewWriterSize(f, 1<<20)}
	if len(order) > 0 {
		var enc blockEncoder
		enc.dim = dim
		for _, i := range order {
			enc.addKey(set.keys[i], set.session(int(i)))
		}
		head := enc.head(nil, 0)
		crc := crc32.Update(0, castagnoli, head)
		w.Write(head)
		src := floatReader{r: r, buf: make([]byte, max(1<<20, 4*dim))}
		for _, i := range order {
			b, err := src.at(at[i], 4*dim)
			if err != nil {
				f.Close()
				return 0, 0, fmt.Errorf("%w: %v", errSegmentDamaged, err)
			}
			crc = crc32.Update(crc, castagnoli, b)
			w.Write(b)
		}
		w.Write(binary.LittleEndian.AppendUint32(nil, crc))
	}
	w.Write(tail)
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err != nil {
		f.Close()
		return 0, 0, w.err
	}
	if err := f.Close(); err != nil {
		return 0, 0, err
	}
	return w.n, len(order), nil
}

// floatOffsets is where in the file the floats of each of the layout's
// live vectors lie, by their index in its set.
func (l *segmentLayout) floatOffsets() []int64 {
	dim := int64(l.set.dim)
	at := make([]int64, 0, l.set.len())
	for _, b := range l.blocks {
		for j := range b.records {
			if l.alive == nil || l.alive[b.first+j] {
				at = append(at, b.floats+int64(j)*4*dim)
			}
		}
	}
	return at
}

func compareKeys(a, b vectorKey) int {
	return cmp.Or(cmp.Compare(a.turnID, b.turnID), cmp.Compare(a.part, b.part))
}

// floatReader reads pieces of a file through a window of its bytes, so
// that pieces read in file order cost one read a window.
type floatReader struct {
	r     io.ReaderAt
	buf   []byte
	start int64
	n     int
}

// at is the n bytes at off, valid until the next call.
func (w *floatReader) at(off int64, n int) ([]byte, error) {
	if off < w.start || off+int64(n) > w.start+int64(w.n) {
		got, err := w.r.ReadAt(w.buf, off)
		if got < n {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			w.n = 0
			return nil, err
		}
		w.start, w.n = off, got
	}
	return w.buf[off-w.start : off-w.start+int64(n)], nil
}

// countingWriter counts what it writes and keeps the first error.
type countingWriter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
}
