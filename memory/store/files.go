package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/store/segment"
)

// fileState is a files row: what the last index knew of a history.
type FileState struct {
	Size, Mtime int64
	LastOffset  int64
	LastOrdinal int
	Fingerprint []byte
	// full: 'deja index --full' marked the history, and no run has yet
	// re-read it whole and re-embedded it.
	Full  bool
	Known bool
	// harness is the name of the harness that read the file.
	Harness string
}

// giveBackLog truncates the write-ahead log after a write failed for lack
// of space: the failed transaction grew it, and its frames are never
// committed, so the space goes back to the disk. Best effort: a reader
// holding an old snapshot keeps the log until the next run.
func (s *Store) GiveBackLog(ctx context.Context) {
	_, _ = s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
}

// KnownFiles lists the histories the store has indexed, deleted ones too,
// but for those whose path held a secret: the store keeps no path of
// theirs to open, and finds them again when a run names them.
func (s *Store) KnownFiles(ctx context.Context) ([]string, error) {
	paths, err := QueryStrings(ctx, s.db, `SELECT path FROM files ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("store: listing files: %w", err)
	}
	return slices.DeleteFunc(paths, isKeyedPath), nil
}

// registerEmbedder records the embedder's dimension, and refuses one whose
// vectors changed length under the same identity: they could not be
// compared with the stored ones.
func (s *Store) RegisterEmbedder(ctx context.Context, emb embed.Embedder) error {
	var dim int
	err := s.db.QueryRowContext(ctx, `SELECT dimension FROM embedders WHERE identity = ?`, emb.Identity()).Scan(&dim)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// complete = 0: every turn already stored lacks this embedder's
		// vectors, so the fill step runs.
		_, err = s.db.ExecContext(ctx, `INSERT INTO embedders(identity, dimension, complete) VALUES (?, ?, 0)`, emb.Identity(), emb.Dimension())
		return diskHint(err)
	case err != nil:
		return fmt.Errorf("store: reading embedders: %w", err)
	case dim != emb.Dimension():
		return fmt.Errorf("store: %s gave %d-d vectors before and %d-d now: run 'deja index --full' to re-embed", emb.Identity(), dim, emb.Dimension())
	}
	return nil
}

// track records, before any history is read, what this run means to do:
// a history named for the first time gets a files row of size -1 (read it
// whole), and with full every named history is marked to be re-read whole
// and re-embedded. Each mark is cleared in the transaction that re-reads its
// history, so a run killed half-way leaves the rest marked and tracked, and
// the next plain 'deja index' finishes them. Nothing is deleted up front:
// until its history is re-read, a session keeps its turns and vectors, and
// recall answers from them.
func (s *Store) Track(ctx context.Context, paths []string, full bool) error {
	known, err := QueryStrings(ctx, s.db, `SELECT path FROM files`)
	if err != nil {
		return fmt.Errorf("store: listing files: %w", err)
	}
	have := map[string]bool{}
	for _, p := range known {
		have[p] = true
	}
	var fresh []string
	for _, path := range paths {
		// Only a regular file is tracked ahead: a path that is gone, a
		// directory or a device is reported when it is reached.
		if fi, err := os.Stat(path); !have[s.RowPath(path)] && err == nil && fi.Mode().IsRegular() {
			fresh = append(fresh, path)
		}
	}
	if !full && len(fresh) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, path := range fresh {
			if _, err := tx.ExecContext(ctx, `
				INSERT OR IGNORE INTO files(path, project, size, mtime_ns, last_offset, last_ordinal, fingerprint, indexed_at, harness, full_pending)
				VALUES (?, ?, -1, 0, 0, 1, x'', 0, '', 0)`, s.RowPath(path), s.rowDir(path)); err != nil {
				return err
			}
		}
		if !full {
			return nil
		}
		for _, path := range paths {
			if _, err := tx.ExecContext(ctx, `UPDATE files SET full_pending = 1 WHERE path = ?`, s.RowPath(path)); err != nil {
				return err
			}
		}
		// The keyword index holds no text of its own: --full writes it
		// anew from the turns.
		if _, err := tx.ExecContext(ctx, `INSERT INTO turns_fts(turns_fts) VALUES ('delete-all')`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO turns_fts(rowid, user, assistant, files, commands)
			SELECT id, user, assistant, files, commands FROM turns`)
		return err
	})
}

// dropUntracked removes the files row track made for a history that turned
// out not to be indexable (binary, unreadable), so later runs do not warn
// about a file that was never indexed.
func (s *Store) DropUntracked(ctx context.Context, path string) {
	// Best effort: the row only makes a later run look at the file again.
	_, _ = s.db.ExecContext(ctx, `DELETE FROM files WHERE path = ? AND size = -1`, s.RowPath(path))
}

// write runs fn in one immediate transaction, and moves the vectors it
// wrote or deleted into the segments before it commits (flushVectors).
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.writeVectors(ctx, false, fn)
}

// writeVectors is write; with compact, every segment is rewritten without
// its dead vectors.
func (s *Store) writeVectors(ctx context.Context, compact bool, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	defer tx.Rollback()
	s.openFloats(tx)
	defer s.closeFloats(tx)
	if err := tunedForWriting(ctx, tx); err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	if err := fn(tx); err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	obsolete, err := s.flushVectors(ctx, tx, compact)
	if err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	if pf := s.floatsOf(tx); pf != nil {
		obsolete = append(pf.Obsolete, obsolete...)
	}
	segment.RemoveSegments(obsolete)
	return nil
}

// writerPragmas tune the connection of every write transaction: a 16 MB
// page cache instead of 2 MB (or a one-shot store's 256 KiB), and a
// checkpoint every 10,000 pages instead of 1,000. Indexing bench/perf's
// 100k-turn histories into a new store in one process took 15.3-15.4 s
// with them and 16.9-19.7 s without (two runs each, interleaved), for 20
// MB more peak memory (142-143 MB against 120-122 MB). The settings stay
// with the connection, and only a process that writes has them: the CLI,
// which exits after (a service never writes).
var writerPragmas = []string{`PRAGMA cache_size = -16384`, `PRAGMA wal_autocheckpoint = 10000`}

// tunedForWriting applies writerPragmas to tx's connection.
func tunedForWriting(ctx context.Context, tx *sql.Tx) error {
	for _, p := range writerPragmas {
		if _, err := tx.ExecContext(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// embedBatch is how many texts go to the embedder at once.
const EmbedBatch = 256

// putFileStateSQL updates a files row in place rather than replacing it:
// a REPLACE deletes the old row without its delete trigger, which keeps
// the ledger's checksum (ledgersum.go).
const putFileStateSQL = `
	INSERT INTO files(path, project, size, mtime_ns, last_offset, last_ordinal, fingerprint, indexed_at, harness, full_pending)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT(path) DO UPDATE SET project = excluded.project, size = excluded.size, mtime_ns = excluded.mtime_ns,
		last_offset = excluded.last_offset, last_ordinal = excluded.last_ordinal, fingerprint = excluded.fingerprint,
		indexed_at = excluded.indexed_at, harness = excluded.harness, full_pending = excluded.full_pending`

// fileStateColumns are the files columns a fileState holds, in the order
// of its fields.
const fileStateColumns = `size, mtime_ns, last_offset, last_ordinal, fingerprint, full_pending, harness`

// fields are where a row of fileStateColumns scans into.
func (st *FileState) fields() []any {
	return []any{&st.Size, &st.Mtime, &st.LastOffset, &st.LastOrdinal, &st.Fingerprint, &st.Full, &st.Harness}
}

func (s *Store) FileState(ctx context.Context, path string) (FileState, error) {
	var st FileState
	err := s.db.QueryRowContext(ctx, `SELECT `+fileStateColumns+` FROM files WHERE path = ?`, s.RowPath(path)).Scan(st.fields()...)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("store: reading the ledger: %w", err)
	}
	st.Known = true
	return st, nil
}

// fileStates reads every files row, by the path as the row keeps it
// (rowPath).
func (s *Store) FileStates(ctx context.Context) (map[string]FileState, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, `+fileStateColumns+` FROM files`)
	if err != nil {
		return nil, fmt.Errorf("store: reading the ledger: %w", err)
	}
	defer rows.Close()
	out := map[string]FileState{}
	for rows.Next() {
		var path string
		st := FileState{Known: true}
		if err := rows.Scan(append([]any{&path}, st.fields()...)...); err != nil {
			return nil, fmt.Errorf("store: reading the ledger: %w", err)
		}
		out[path] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading the ledger: %w", err)
	}
	return out, nil
}

type KnownSession struct {
	Id      string
	Offset  int64
	Header  string
	Started sql.NullString
	Present bool
	// first is the user text of the session's first stored turn.
	First string
}

func (s *Store) FileSessions(ctx context.Context, path string) ([]KnownSession, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT id, offset, header, started, present,
			COALESCE((SELECT user FROM turns WHERE session_id = sessions.id ORDER BY turn LIMIT 1), '')
		FROM sessions WHERE path = ?`, s.RowPath(path))
	if err != nil {
		return nil, fmt.Errorf("store: reading the ledger: %w", err)
	}
	defer rows.Close()
	var out []KnownSession
	for rows.Next() {
		var k KnownSession
		if err := rows.Scan(&k.Id, &k.Offset, &k.Header, &k.Started, &k.Present, &k.First); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (s *Store) Tombstones(ctx context.Context, path string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT session_id FROM tombstones WHERE path = ?`, s.RowPath(path))
	if err != nil {
		return nil, fmt.Errorf("store: reading tombstones: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}
