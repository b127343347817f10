package memory

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"
)

// A one-shot recall (RecallOptions.Once: a fresh 'deja recall' with no
// service to answer it) does not load the embedder's vectors: it reads
// the segment twice, once for the keys, the sessions and which vectors
// are alive (layoutSegment), and once for the floats, a piece at a time,
// each piece put into chromem-go collections, queried and let go (scan).
// So it holds one piece of floats per core instead of all of them. At
// 100k turns the floats alone are 63 MB, and on the machines measured
// here the first touch of fresh memory, not the reading, was most of a
// cold recall's time.

// segmentLayout is a segment read without its floats.
type segmentLayout struct {
	// set is the live vectors' keys and sessions, with no floats.
	set *vectorSet
	// blocks are the blocks that check out, in file order.
	blocks []blockSpan
	// alive says, by record in file order, which records a later block
	// did not kill or replace; nil when every record is alive.
	alive []bool
	// length is how many bytes of the file the blocks make.
	length int64
}

// blockSpan is where one block lies in its file.
type blockSpan struct {
	// start, floats and end are the offsets of the block's first byte,
	// its first float and its end (past the checksum).
	start, floats, end int64
	// first is the file-order number of its first record, records how
	// many it holds.
	first, records int
}

// vectorPiece is a piece of a scan: live vectors, by their index in the
// layout's set, and their floats, dim a vector.
type vectorPiece struct {
	idx  []int32
	vecs []float32
	raw  []byte
}

// scanPieceBytes bounds the floats of one piece.
const scanPieceBytes = 1 << 20

// scanVisitor is what a scan does with the pieces: inOrder sees each on
// the scanning goroutine, in file order (sums whose rounding must not
// depend on the order of the workers); work sees each on one of the
// workers, one per core.
type scanVisitor struct {
	inOrder func(*vectorPiece)
	work    func(*vectorPiece)
}

// scanVectors reads the embedder's segment for a one-shot recall: it
// reads the layout, gives it to start for a visitor, and scans the floats
// to it. A compaction may replace the file between reading its name and
// reading it: it tries again, with a fresh visitor, only when the ledger
// names another file. A damaged file says how to repair it, as a load
// does (readVectors).
func (s *Store) scanVectors(ctx context.Context, identity string, start func(*vectorSet) scanVisitor) error {
	var err error
	var prev segmentRow
	for try := range 3 {
		row, ok, rerr := readSegmentRow(ctx, s.db, identity)
		if rerr != nil {
			return rerr
		}
		if try > 0 && row == prev {
			break
		}
		prev = row
		if err = s.scanSegmentFile(ctx, filepath.Join(s.dir, VectorDir, row.file), row, ok, start); err == nil || ctx.Err() != nil {
			return err
		}
	}
	if errors.Is(err, errSegmentDamaged) {
		s.askCheck()
	}
	return fmt.Errorf("store: the %s %w: run 'deja index' to repair it (it embeds the lost turns again)", identity, err)
}

// scanSegmentFile is scanVectors on one file, the ledger's row of it.
func (s *Store) scanSegmentFile(ctx context.Context, path string, row segmentRow, exists bool, start func(*vectorSet) scanVisitor) error {
	if !exists || row.length == 0 {
		start(&vectorSet{})
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", errSegmentDamaged, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() < row.length {
		return fmt.Errorf("%w: %s is shorter than the ledger's %d bytes", errSegmentDamaged, filepath.Base(path), row.length)
	}
	l, good := layoutSegment(f, row.length, int(row.records))
	if good != row.length {
		return fmt.Errorf("%w: %s fails its checksum at byte %d", errSegmentDamaged, filepath.Base(path), good)
	}
	perPiece := s.piece
	if perPiece == 0 && l.set.dim > 0 {
		perPiece = max(1, scanPieceBytes/(4*l.set.dim))
	}
	v := start(l.set)
	if err := l.scan(ctx, f, perPiece, v); err != nil {
		if errors.Is(err, errSegmentDamaged) {
			return fmt.Errorf("%w: %s changed while it was read", err, filepath.Base(path))
		}
		return err
	}
	return nil
}

// scan reads the layout's live vectors from r, perPiece at a time, and
// gives each piece to v. It checks each block's checksum again as it goes:
// the file may have been rewritten since its layout was read. A piece's
// buffers are reused once v.work returns.
func (l *segmentLayout) scan(ctx context.Context, r io.ReaderAt, perPiece int, v scanVisitor) error {
	dim := l.set.dim
	if dim == 0 || l.set.len() == 0 {
		return nil
	}
	workers := runtime.GOMAXPROCS(0)
	free := make(chan *vectorPiece, workers+1)
	for range workers + 1 {
		free <- &vectorPiece{idx: make([]int32, 0, perPiece), raw: make([]byte, 4*perPiece*dim)}
	}
	jobs := make(chan *vectorPiece)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				v.work(p)
				free <- p
			}
		}()
	}
	err := l.read(ctx, r, perPiece, free, func(p *vectorPiece) {
		v.inOrder(p)
		jobs <- p
	})
	close(jobs)
	wg.Wait()
	return err
}

// read fills pieces taken from free with the live vectors, in file order,
// and hands each to done.
func (l *segmentLayout) read(ctx context.Context, r io.ReaderAt, perPiece int, free <-chan *vectorPiece, done func(*vectorPiece)) error {
	dim := l.set.dim
	var head []byte
	live := int32(0)
	for _, b := range l.blocks {
		if b.records == 0 {
			continue // markers only: the layout applied them
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		n := int(b.floats - b.start)
		if cap(head) < n {
			head = make([]byte, n)
		}
		head = head[:n]
		if _, err := r.ReadAt(head, b.start); err != nil {
			return fmt.Errorf("%w: %v", errSegmentDamaged, err)
		}
		crc := crc32.Update(0, castagnoli, head)
		at := b.floats
		for j := 0; j < b.records; {
			k := min(perPiece, b.records-j)
			p := <-free
			raw := p.raw[:4*k*dim]
			if _, err := r.ReadAt(raw, at); err != nil {
				return fmt.Errorf("%w: %v", errSegmentDamaged, err)
			}
			crc = crc32.Update(crc, castagnoli, raw)
			at += int64(len(raw))
			vecs := floatsOf(raw)
			p.idx = p.idx[:0]
			w := 0
			for i := range k {
				if l.alive != nil && !l.alive[b.first+j+i] {
					continue
				}
				if w != i {
					copy(vecs[w*dim:(w+1)*dim], vecs[i*dim:(i+1)*dim])
				}
				p.idx = append(p.idx, live)
				live++
				w++
			}
			p.vecs = vecs[:w*dim]
			j += k
			done(p)
		}
		var sum [4]byte
		if _, err := r.ReadAt(sum[:], at); err != nil || at+4 != b.end || binary.LittleEndian.Uint32(sum[:]) != crc {
			return errSegmentDamaged
		}
	}
	if int(live) != l.set.len() {
		return errSegmentDamaged
	}
	return nil
}

// floatsOf is raw's little-endian floats, in place.
func floatsOf(raw []byte) []float32 {
	if len(raw) == 0 {
		return nil
	}
	v := unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), len(raw)/4)
	if !littleEndian {
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	}
	return v
}
