package segment

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
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
type SegmentLayout struct {
	// set is the live vectors' keys and sessions, with no floats.
	Set *VectorSet
	// blocks are the blocks that check out, in file order.
	Blocks []blockSpan
	// alive says, by record in file order, which records a later block
	// did not kill or replace; nil when every record is alive.
	Alive []bool
	// length is how many bytes of the file the blocks make.
	length int64
}

// blockSpan is where one block lies in its file.
type blockSpan struct {
	// start, floats and end are the offsets of the block's first byte,
	// its first float and its end (past the checksum).
	Start, Floats, End int64
	// first is the file-order number of its first record, records how
	// many it holds.
	first, Records int
}

// vectorPiece is a piece of a scan: live vectors, by their index in the
// layout's set, and their floats, dim a vector.
type VectorPiece struct {
	Idx  []int32
	Vecs []float32
	raw  []byte
}

// scanPieceBytes bounds the floats of one piece.
const ScanPieceBytes = 1 << 20

// scanVisitor is what a scan does with the pieces: inOrder sees each on
// the scanning goroutine, in file order (sums whose rounding must not
// depend on the order of the workers); work sees each on one of the
// workers, one per core.
type ScanVisitor struct {
	InOrder func(*VectorPiece)
	Work    func(*VectorPiece)
}

// scan reads the layout's live vectors from r, perPiece at a time, and
// gives each piece to v. It checks each block's checksum again as it goes:
// the file may have been rewritten since its layout was read. A piece's
// buffers are reused once v.work returns.
func (l *SegmentLayout) Scan(ctx context.Context, r io.ReaderAt, perPiece int, v ScanVisitor) error {
	dim := l.Set.Dim
	if dim == 0 || l.Set.Len() == 0 {
		return nil
	}
	workers := runtime.GOMAXPROCS(0)
	free := make(chan *VectorPiece, workers+1)
	for range workers + 1 {
		free <- &VectorPiece{Idx: make([]int32, 0, perPiece), raw: make([]byte, 4*perPiece*dim)}
	}
	jobs := make(chan *VectorPiece)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				v.Work(p)
				free <- p
			}
		}()
	}
	err := l.read(ctx, r, perPiece, free, func(p *VectorPiece) {
		v.InOrder(p)
		jobs <- p
	})
	close(jobs)
	wg.Wait()
	return err
}

// read fills pieces taken from free with the live vectors, in file order,
// and hands each to done.
func (l *SegmentLayout) read(ctx context.Context, r io.ReaderAt, perPiece int, free <-chan *VectorPiece, done func(*VectorPiece)) error {
	dim := l.Set.Dim
	var head []byte
	live := int32(0)
	for _, b := range l.Blocks {
		if b.Records == 0 {
			continue // markers only: the layout applied them
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		n := int(b.Floats - b.Start)
		if cap(head) < n {
			head = make([]byte, n)
		}
		head = head[:n]
		if _, err := r.ReadAt(head, b.Start); err != nil {
			return fmt.Errorf("%w: %v", ErrSegmentDamaged, err)
		}
		crc := crc32.Update(0, Castagnoli, head)
		at := b.Floats
		for j := 0; j < b.Records; {
			k := min(perPiece, b.Records-j)
			p := <-free
			raw := p.raw[:4*k*dim]
			if _, err := r.ReadAt(raw, at); err != nil {
				return fmt.Errorf("%w: %v", ErrSegmentDamaged, err)
			}
			crc = crc32.Update(crc, Castagnoli, raw)
			at += int64(len(raw))
			vecs := floatsOf(raw)
			p.Idx = p.Idx[:0]
			w := 0
			for i := range k {
				if l.Alive != nil && !l.Alive[b.first+j+i] {
					continue
				}
				if w != i {
					copy(vecs[w*dim:(w+1)*dim], vecs[i*dim:(i+1)*dim])
				}
				p.Idx = append(p.Idx, live)
				live++
				w++
			}
			p.Vecs = vecs[:w*dim]
			j += k
			done(p)
		}
		var sum [4]byte
		if _, err := r.ReadAt(sum[:], at); err != nil || at+4 != b.End || binary.LittleEndian.Uint32(sum[:]) != crc {
			return ErrSegmentDamaged
		}
	}
	if int(live) != l.Set.Len() {
		return ErrSegmentDamaged
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
