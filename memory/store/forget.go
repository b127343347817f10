package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrNotScrubbed reports a Forget that committed: the sessions are gone
// from the ledger, the indexes and recall, and stay out. What failed came
// after: scrubbing their text from the store's files, or removing the
// digests that quote them. Forgetting the same IDs again finishes it.
var ErrNotScrubbed = errors.New("forgotten, but their text may remain in the store's files until the same 'deja forget' is run again")

// Forget removes sessions from the ledger, the keyword index and the
// vectors, and leaves a tombstone so no later Index brings them back. It
// takes the writer's lock. IDs already forgotten are not an error, and
// forgetting them again scrubs again. An error wrapping ErrNotScrubbed
// means the forget itself committed; any other error means nothing was
// forgotten.
func (s *Store) Forget(ctx context.Context, ids []string, lock LockOptions) error {
	// What this store keeps loaded for recall reflects the write.
	defer s.Invalidate()
	l, err := AcquireLock(ctx, s.dir, lock)
	if err != nil {
		return err
	}
	defer l.Unlock()
	err = s.write(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			var path string
			err := tx.QueryRowContext(ctx, `SELECT path FROM sessions WHERE id = ?`, id).Scan(&path)
			if errors.Is(err, sql.ErrNoRows) {
				var one int
				if tx.QueryRowContext(ctx, `SELECT 1 FROM tombstones WHERE session_id = ?`, id).Scan(&one) == nil {
					continue
				}
				return fmt.Errorf("%w %q: 'deja sessions' lists the IDs", ErrNoSession, id)
			}
			if err != nil {
				return err
			}
			// Turns, their vectors and their keyword rows go by cascade
			// and trigger.
			if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO tombstones(session_id, path, forgotten) VALUES (?, ?, ?)`, id, path, time.Now().Unix()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNoSession) {
			return err
		}
		return fmt.Errorf("nothing was forgotten: %w", err)
	}
	if err := s.scrub(ctx); err != nil {
		return fmt.Errorf("%w: %v", ErrNotScrubbed, err)
	}
	if err := s.dropDigests(ids); err != nil {
		return fmt.Errorf("%w: %v", ErrNotScrubbed, err)
	}
	return nil
}

// DigestDir is the directory, inside the data directory, that holds the
// context digests written for agents ('deja context', 'deja aider').
const DigestDir = "context"

// dropDigests removes the context digests that cite a forgotten session:
// they quote its turns. The next 'deja context' or 'deja aider' writes
// them again from what the store still holds.
func (s *Store) dropDigests(ids []string) error {
	dir := filepath.Join(s.dir, DigestDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: reading the digests in %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("store: reading digest %s: %w", path, err)
		}
		for _, id := range ids {
			if bytes.Contains(data, []byte(id)) {
				if err := os.Remove(path); err != nil {
					return fmt.Errorf("store: removing digest %s, which quotes a forgotten session: %w", path, err)
				}
				break
			}
		}
	}
	return nil
}

// scrub leaves no trace of deleted text in the store's files: FTS5 keeps
// the tokens of deleted rows in its segments until they merge, so merge them
// all; secure_delete has zeroed the freed pages, and a truncating
// checkpoint moves the last page images out of the write-ahead log. A
// reader holding an old snapshot (a running 'deja serve') can keep the
// log from truncating; the next forget or index finishes it.
func (s *Store) scrub(ctx context.Context) error {
	// The segments are rewritten without the dead vectors, and the old
	// files zeroed (see segment.go).
	if err := s.writeVectors(ctx, true, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO turns_fts(turns_fts) VALUES ('optimize')`)
		return err
	}); err != nil {
		return err
	}
	s.ReleaseFree(ctx)
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	return nil
}

// Unforget lifts the tombstones of sessions, so the next Index reads them
// again from their file (which it re-reads whole). A session whose file no
// longer holds it cannot come back. It reports, per ID, the history the
// session came from.
func (s *Store) Unforget(ctx context.Context, ids []string, lock LockOptions) (map[string]string, error) {
	// What this store keeps loaded for recall reflects the write.
	defer s.Invalidate()
	l, err := AcquireLock(ctx, s.dir, lock)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	from := map[string]string{}
	err = s.write(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			var path string
			err := tx.QueryRowContext(ctx, `SELECT path FROM tombstones WHERE session_id = ?`, id).Scan(&path)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("session %q is not forgotten: 'deja status' counts the forgotten ones", id)
			}
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM tombstones WHERE session_id = ?`, id); err != nil {
				return err
			}
			// The session lies in bytes already read: make the next index
			// read the file whole (the fingerprint can no longer match).
			if _, err := tx.ExecContext(ctx, `UPDATE files SET mtime_ns = 0, fingerprint = x'' WHERE path = ?`, path); err != nil {
				return err
			}
			from[id] = path
		}
		return nil
	})
	return from, err
}

// Forgotten lists the tombstoned session IDs.
func (s *Store) Forgotten(ctx context.Context) ([]string, error) {
	ids, err := QueryStrings(ctx, s.db, `SELECT session_id FROM tombstones ORDER BY session_id`)
	if err != nil {
		return nil, fmt.Errorf("store: reading tombstones: %w", err)
	}
	return ids, nil
}
