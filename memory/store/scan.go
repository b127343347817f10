package store

import (
	"context"
	"errors"
	"fmt"
	"github.com/deja-dev/deja/memory/store/segment"
	"os"
	"path/filepath"
)

// scanVectors reads the embedder's segment for a one-shot recall: it
// reads the layout, gives it to start for a visitor, and scans the floats
// to it. A compaction may replace the file between reading its name and
// reading it: it tries again, with a fresh visitor, only when the ledger
// names another file. A damaged file says how to repair it, as a load
// does (readVectors).
func (s *Store) ScanVectors(ctx context.Context, identity string, start func(*segment.VectorSet) segment.ScanVisitor) error {
	var err error
	var prev segment.SegmentRow
	for try := range 3 {
		row, ok, rerr := segment.ReadSegmentRow(ctx, s.db, identity)
		if rerr != nil {
			return rerr
		}
		if try > 0 && row == prev {
			break
		}
		prev = row
		if err = s.scanSegmentFile(ctx, filepath.Join(s.dir, segment.VectorDir, row.File), row, ok, start); err == nil || ctx.Err() != nil {
			return err
		}
	}
	if errors.Is(err, segment.ErrSegmentDamaged) {
		s.AskCheck()
	}
	return fmt.Errorf("store: the %s %w: run 'deja index' to repair it (it embeds the lost turns again)", identity, err)
}

// scanSegmentFile is scanVectors on one file, the ledger's row of it.
func (s *Store) scanSegmentFile(ctx context.Context, path string, row segment.SegmentRow, exists bool, start func(*segment.VectorSet) segment.ScanVisitor) error {
	if !exists || row.Length == 0 {
		start(&segment.VectorSet{})
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %v", segment.ErrSegmentDamaged, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() < row.Length {
		return fmt.Errorf("%w: %s is shorter than the ledger's %d bytes", segment.ErrSegmentDamaged, filepath.Base(path), row.Length)
	}
	l, good := segment.LayoutSegment(f, row.Length, int(row.Records))
	if good != row.Length {
		return fmt.Errorf("%w: %s fails its checksum at byte %d", segment.ErrSegmentDamaged, filepath.Base(path), good)
	}
	perPiece := s.Piece
	if perPiece == 0 && l.Set.Dim > 0 {
		perPiece = max(1, segment.ScanPieceBytes/(4*l.Set.Dim))
	}
	v := start(l.Set)
	if err := l.Scan(ctx, f, perPiece, v); err != nil {
		if errors.Is(err, segment.ErrSegmentDamaged) {
			return fmt.Errorf("%w: %s changed while it was read", err, filepath.Base(path))
		}
		return err
	}
	return nil
}
