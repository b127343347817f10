package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/deja-dev/deja/memory/store/segment"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// flushVectors moves the transaction's pending vectors and deletions into
// the segments, before it commits. compact rewrites every segment without
// its dead vectors (forget). It returns the files to remove once the
// transaction has committed.
func (s *Store) flushVectors(ctx context.Context, tx *sql.Tx, compact bool) ([]string, error) {
	q := `SELECT embedder FROM vectors WHERE vec IS NOT NULL
		UNION SELECT embedder FROM vector_dead`
	if compact {
		q += ` UNION SELECT embedder FROM segments`
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	var identities []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		identities = append(identities, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var obsolete []string
	for _, id := range identities {
		old, err := s.flushEmbedder(ctx, tx, id, compact)
		if err != nil {
			return nil, fmt.Errorf("writing the %s vectors: %w", id, err)
		}
		obsolete = append(obsolete, old...)
	}
	return obsolete, nil
}

func (s *Store) flushEmbedder(ctx context.Context, tx *sql.Tx, identity string, compact bool) ([]string, error) {
	row, ok, err := segment.ReadSegmentRow(ctx, tx, identity)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(s.dir, segment.VectorDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if !ok {
		row = segment.SegmentRow{Gen: 1, File: segment.SegmentName(identity, 1)}
	}
	dead, err := segment.DeadVectors(ctx, tx, identity)
	if err != nil {
		return nil, err
	}
	block, n, err := pendingBlock(ctx, tx, identity, dead, s.floatsOf(tx))
	if err != nil {
		return nil, err
	}
	var obsolete []string
	if compact || (row.Dead+int64(len(dead)) > 0 && 3*(row.Dead+int64(len(dead))) > row.Records+int64(n)) {
		// Rewrite: the live vectors of the committed file, then this
		// transaction's block, into a new file.
		f, l, err := segment.OpenLayout(filepath.Join(dir, row.File), row, ok)
		if f != nil {
			defer f.Close()
		}
		if err != nil {
			return nil, err
		}
		next := segment.SegmentRow{Gen: row.Gen + 1}
		next.File = segment.SegmentName(identity, next.Gen)
		length, live, err := segment.WriteCompacted(filepath.Join(dir, next.File), f, l, dead, block)
		if err != nil {
			return nil, err
		}
		next.Length = length
		next.Records = int64(live + n)
		if ok {
			obsolete = append(obsolete, filepath.Join(dir, row.File))
		}
		row = next
	} else if len(block) > 0 {
		if err := segment.AppendAt(filepath.Join(dir, row.File), row.Length, block); err != nil {
			return nil, err
		}
		row.Length += int64(len(block))
		row.Records += int64(n)
		row.Dead += int64(len(dead))
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO segments(embedder, file, gen, length, records, dead) VALUES (?, ?, ?, ?, ?, ?)`,
		identity, row.File, row.Gen, row.Length, row.Records, row.Dead); err != nil {
		return nil, err
	}
	// INDEXED BY: the planner prefers the primary key (embedder first),
	// which steps through every vector of the embedder at every commit;
	// at 100k turns that made indexing 2.5 times slower per turn.
	if _, err := tx.ExecContext(ctx, `UPDATE vectors INDEXED BY vectors_pending SET vec = NULL WHERE embedder = ? AND vec IS NOT NULL`, identity); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM vector_floats WHERE embedder = ?`, identity); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM vector_dead WHERE embedder = ?`, identity); err != nil {
		return nil, err
	}
	return obsolete, nil
}

// openFloats gives tx its pendingFloats, for putVectors and the flush.
func (s *Store) openFloats(tx *sql.Tx) {
	s.floatsMu.Lock()
	defer s.floatsMu.Unlock()
	if s.floats == nil {
		s.floats = map[*sql.Tx]*segment.PendingFloats{}
	}
	s.floats[tx] = &segment.PendingFloats{M: map[segment.FloatKey][]float32{}}
}

// closeFloats lets go of tx's pendingFloats.
func (s *Store) closeFloats(tx *sql.Tx) {
	s.floatsMu.Lock()
	defer s.floatsMu.Unlock()
	delete(s.floats, tx)
}

// floatsOf is tx's pendingFloats (nil outside write).
func (s *Store) floatsOf(tx *sql.Tx) *segment.PendingFloats {
	s.floatsMu.Lock()
	defer s.floatsMu.Unlock()
	return s.floats[tx]
}

// pendingBlock encodes the dead markers and the pending vectors of the
// embedder as one block (nil when there are neither). A pending empty
// vector (a chunk with no semantic signal) has no record, only a marker,
// since it may replace a flushed vector of the same turn and part. Floats
// come from vector_floats where a schema upgrade parked them, else from
// the transaction's pendingFloats.
func pendingBlock(ctx context.Context, tx *sql.Tx, identity string, dead []segment.VectorKey, floats *segment.PendingFloats) ([]byte, int, error) {
	// INDEXED BY: the pending few, not every vector (see flushEmbedder).
	rows, err := tx.QueryContext(ctx, `SELECT v.turn_id, v.part, f.vec, s.id, s.project, s.path, s.harness, s.subagent, s.started_ns
		FROM vectors v INDEXED BY vectors_pending JOIN turn_rows t ON t.id = v.turn_id JOIN sessions s ON s.id = t.session_id
		LEFT JOIN vector_floats f ON f.embedder = v.embedder AND f.turn_id = v.turn_id AND f.part = v.part
		WHERE v.embedder = ? AND v.vec IS NOT NULL ORDER BY v.turn_id, v.part`, identity)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var enc segment.BlockEncoder
	for rows.Next() {
		var k segment.VectorKey
		var blob []byte
		var m segment.SessionMeta
		var path string
		var started sql.NullInt64
		if err := rows.Scan(&k.TurnID, &k.Part, &blob, &m.Id, &m.Project, &path, &m.Harness, &m.Subagent, &started); err != nil {
			return nil, 0, err
		}
		m.Origin, m.StartedNS, m.HasStart = OriginOf(path), started.Int64, started.Valid
		var v []float32
		if blob != nil {
			v = segment.Normalize(segment.DecodeVector(blob))
		} else if floats != nil {
			v = segment.Normalize(floats.M[segment.FloatKey{Embedder: identity, Key: k}])
		}
		if v == nil {
			dead = append(dead, k)
			continue
		}
		if err := enc.Add(k, &m, v); err != nil {
			return nil, 0, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if enc.N == 0 && len(dead) == 0 {
		return nil, 0, nil
	}
	return enc.Encode(dead), enc.N, nil
}

// removeOrphanSegments removes the files of vectors/ the ledger does not
// name: left by a flush that did not commit, or by a process that died
// between a compaction's commit and the old file's removal. Only the
// writer calls it, under the writer's lock.
func (s *Store) removeOrphanSegments(ctx context.Context) error {
	names, err := QueryStrings(ctx, s.db, `SELECT file FROM segments`)
	if err != nil {
		return fmt.Errorf("store: reading the vector segments: %w", err)
	}
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	dir := filepath.Join(s.dir, segment.VectorDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var orphans []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".seg") && !keep[e.Name()] {
			orphans = append(orphans, filepath.Join(dir, e.Name()))
		}
	}
	segment.RemoveSegments(orphans)
	return nil
}

// readSegmentFile reads the first length bytes of a segment file into a
// vectorSet. A file the ledger does not name yet (exists false) is empty.
func (s *Store) ReadSegmentFile(path string, row segment.SegmentRow, exists bool) (*segment.VectorSet, error) {
	if !exists || row.Length == 0 {
		return &segment.VectorSet{}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", segment.ErrSegmentDamaged, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() < row.Length {
		return nil, fmt.Errorf("%w: %s is shorter than the ledger's %d bytes", segment.ErrSegmentDamaged, filepath.Base(path), row.Length)
	}
	set, good := segment.DecodeSegment(f, row.Length, int(row.Records))
	if good != row.Length {
		return set, fmt.Errorf("%w: %s fails its checksum at byte %d", segment.ErrSegmentDamaged, filepath.Base(path), good)
	}
	return set, nil
}

// checkFile is the file, in vectors/, by which a reader that found a
// segment damaged asks the next index run to check every segment through.
const CheckFile = "check"

// repairSegments checks the embedders' segments before an index run and
// repairs a damaged one: it keeps the blocks that check out and deletes
// the ledger rows of the vectors it lost, so the run embeds those turns
// again. Reading every block costs a full read of the vectors, so a run
// reads them only when a reader asked (checkFile) or a file is missing or
// shorter than the ledger says; otherwise it only looks at the sizes. It
// reports how many turns lost their vectors.
func (s *Store) RepairSegments(ctx context.Context) (int, error) {
	if err := s.removeOrphanSegments(ctx); err != nil {
		return 0, err
	}
	identities, err := QueryStrings(ctx, s.db, `SELECT identity FROM embedders`)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	flag := filepath.Join(s.dir, segment.VectorDir, CheckFile)
	_, err = os.Stat(flag)
	through := err == nil
	lost := 0
	for _, identity := range identities {
		row, ok, err := segment.ReadSegmentRow(ctx, s.db, identity)
		if err != nil {
			return lost, err
		}
		path := filepath.Join(s.dir, segment.VectorDir, row.File)
		var f *os.File
		var l *segment.SegmentLayout
		if ok {
			fi, err := os.Stat(path)
			if err == nil && fi.Size() >= row.Length && !through {
				continue
			}
			// The layout checks every block without holding the floats;
			// a damaged file's is that of the blocks that check out.
			f, l, err = segment.OpenLayout(path, row, true)
			if err == nil {
				f.Close()
				continue
			}
			if !errors.Is(err, segment.ErrSegmentDamaged) {
				if f != nil {
					f.Close()
				}
				return lost, err
			}
		} else {
			var n int
			if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM vectors WHERE embedder = ? AND vec IS NULL LIMIT 1)`, identity).Scan(&n); err != nil {
				return lost, err
			}
			if n == 0 {
				continue // nothing was ever flushed
			}
			// No segment: every flushed vector of the embedder is lost.
			l = &segment.SegmentLayout{Set: &segment.VectorSet{}}
			row = segment.SegmentRow{File: segment.SegmentName(identity, 0)}
		}
		n, err := s.dropLost(ctx, identity, f, l, row, path)
		if f != nil {
			f.Close()
		}
		lost += n
		if err != nil {
			return lost, err
		}
	}
	if through {
		_ = os.Remove(flag)
	}
	return lost, nil
}

// askCheck leaves checkFile for the next index run.
func (s *Store) AskCheck() {
	dir := filepath.Join(s.dir, segment.VectorDir)
	if os.MkdirAll(dir, 0o700) == nil {
		if f, err := os.OpenFile(filepath.Join(dir, CheckFile), os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
	}
}

// dropLost rewrites a damaged segment as its good part and deletes the
// ledger rows of the turns whose flushed vectors it does not all hold, so
// they are embedded again whole.
func (s *Store) dropLost(ctx context.Context, identity string, f io.ReaderAt, l *segment.SegmentLayout, row segment.SegmentRow, old string) (int, error) {
	set := l.Set
	have := make(map[segment.VectorKey]bool, set.Len())
	for _, k := range set.Keys {
		have[k] = true
	}
	dir := filepath.Join(s.dir, segment.VectorDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	lost := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT turn_id, part FROM vectors WHERE embedder = ? AND vec IS NULL`, identity)
		if err != nil {
			return err
		}
		turns := map[int64]bool{}
		for rows.Next() {
			var k segment.VectorKey
			if err := rows.Scan(&k.TurnID, &k.Part); err != nil {
				rows.Close()
				return err
			}
			if !have[k] {
				turns[k.TurnID] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var drop []segment.VectorKey
		for _, k := range set.Keys {
			if turns[k.TurnID] {
				drop = append(drop, k)
			}
		}
		for id := range turns {
			if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE embedder = ? AND turn_id = ?`, identity, id); err != nil {
				return err
			}
		}
		lost = len(turns)
		if _, err := tx.ExecContext(ctx, `DELETE FROM vector_dead WHERE embedder = ?`, identity); err != nil {
			return err
		}
		next := segment.SegmentRow{Gen: row.Gen + 1}
		next.File = segment.SegmentName(identity, next.Gen)
		length, live, err := segment.WriteCompacted(filepath.Join(dir, next.File), f, l, drop, nil)
		if err != nil {
			return err
		}
		next.Length, next.Records = length, int64(live)
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO segments(embedder, file, gen, length, records, dead) VALUES (?, ?, ?, ?, ?, 0)`,
			identity, next.File, next.Gen, next.Length, next.Records); err != nil {
			return err
		}
		if lost > 0 {
			_, err = tx.ExecContext(ctx, `UPDATE embedders SET complete = 0 WHERE identity = ?`, identity)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	segment.RemoveSegments([]string{old})
	return lost, nil
}
