package segment

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
	"sort"
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
func OpenLayout(path string, row SegmentRow, exists bool) (*os.File, *SegmentLayout, error) {
	if !exists || row.Length == 0 {
		return nil, &SegmentLayout{Set: &VectorSet{}}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &SegmentLayout{Set: &VectorSet{}}, fmt.Errorf("%w: %v", ErrSegmentDamaged, err)
	}
	if fi, err := f.Stat(); err != nil || fi.Size() < row.Length {
		f.Close()
		return nil, &SegmentLayout{Set: &VectorSet{}}, fmt.Errorf("%w: %s is shorter than the ledger's %d bytes", ErrSegmentDamaged, filepath.Base(path), row.Length)
	}
	l, good := LayoutSegment(f, row.Length, int(row.Records))
	if good != row.Length {
		return f, l, fmt.Errorf("%w: %s fails its checksum at byte %d", ErrSegmentDamaged, filepath.Base(path), good)
	}
	return f, l, nil
}

// writeCompacted writes a new segment file at path: the layout's live
// vectors less drop, as one block in key order (none when none are left),
// their floats read from r, then tail (a block already encoded, or nil).
// It returns the file's length and how many records the first block holds.
func WriteCompacted(path string, r io.ReaderAt, l *SegmentLayout, drop []VectorKey, tail []byte) (int64, int, error) {
	set, dim := l.Set, l.Set.Dim
	at := l.floatOffsets()
	drop = slices.Clone(drop)
	sort.Slice(drop, func(i, j int) bool { return CompareKeys(drop[i], drop[j]) < 0 })
	order := make([]int32, 0, set.Len())
	for i, k := range set.Keys {
		if _, gone := slices.BinarySearchFunc(drop, k, CompareKeys); !gone {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int { return CompareKeys(set.Keys[a], set.Keys[b]) })

	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, 0, err
	}
	w := &countingWriter{w: bufio.NewWriterSize(f, 1<<20)}
	if len(order) > 0 {
		var enc BlockEncoder
		enc.dim = dim
		for _, i := range order {
			enc.addKey(set.Keys[i], set.Session(int(i)))
		}
		head := enc.head(nil, 0)
		crc := crc32.Update(0, Castagnoli, head)
		w.Write(head)
		src := floatReader{r: r, buf: make([]byte, max(1<<20, 4*dim))}
		for _, i := range order {
			b, err := src.at(at[i], 4*dim)
			if err != nil {
				f.Close()
				return 0, 0, fmt.Errorf("%w: %v", ErrSegmentDamaged, err)
			}
			crc = crc32.Update(crc, Castagnoli, b)
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
func (l *SegmentLayout) floatOffsets() []int64 {
	dim := int64(l.Set.Dim)
	at := make([]int64, 0, l.Set.Len())
	for _, b := range l.Blocks {
		for j := range b.Records {
			if l.Alive == nil || l.Alive[b.first+j] {
				at = append(at, b.Floats+int64(j)*4*dim)
			}
		}
	}
	return at
}

func CompareKeys(a, b VectorKey) int {
	return cmp.Or(cmp.Compare(a.TurnID, b.TurnID), cmp.Compare(a.Part, b.Part))
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
