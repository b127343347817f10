package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/deja-dev/deja/memory/store/segment"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// AsidePrefix begins the name of the directory, inside the data
// directory, where SetAside moves a store.
const AsidePrefix = "damaged-"

// Salvage is what SetAside read of the store it moved aside, for the
// rebuild: the histories it had indexed, its sessions (to name those the
// rebuild could not bring back) and its tombstones (so a forgotten
// session stays forgotten).
type Salvage struct {
	// Aside is the directory the store was moved to; empty when there
	// was no store.
	Aside      string
	Files      []string
	Sessions   []SalvagedSession
	Tombstones []SalvagedSession
	// Problems says what could not be read of it.
	Problems []string
}

// SalvagedSession is a session (or a tombstone) read from a store set
// aside: its ID and the history it came from.
type SalvagedSession struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// SetAside moves the store in dir (its database, write-ahead log and
// vector segments) into a new directory damaged-TIME beside them, under
// the index lock, so that the next Open creates an empty store; nothing is
// deleted. It then reads what it can of the moved store.
func SetAside(ctx context.Context, dir string, lock LockOptions) (*Salvage, error) {
	l, err := AcquireLock(ctx, dir, lock)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	sal := &Salvage{}
	names := []string{DBFile, DBFile + "-wal", DBFile + "-shm", segment.VectorDir}
	var there []string
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			there = append(there, n)
		}
	}
	if len(there) == 0 {
		return sal, nil
	}
	aside := filepath.Join(dir, AsidePrefix+time.Now().UTC().Format("20060102T150405.000"))
	if err := os.Mkdir(aside, 0o700); err != nil {
		return nil, fmt.Errorf("store: setting the store aside: %w", err)
	}
	for _, n := range there {
		if err := os.Rename(filepath.Join(dir, n), filepath.Join(aside, n)); err != nil {
			return nil, fmt.Errorf("store: setting the store aside (%s is in %s): %w", n, aside, err)
		}
	}
	sal.Aside = aside
	sal.read(ctx, aside)
	return sal, nil
}

// read reads what it can of the store in dir, read-only, a query at a
// time: a damaged page spoils one list, not the others.
func (sal *Salvage) read(ctx context.Context, dir string) {
	path := filepath.Join(dir, DBFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		sal.Problems = append(sal.Problems, "there was no database, only vectors")
		return
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		sal.Problems = append(sal.Problems, fmt.Sprintf("the database cannot be read: %v", err))
		return
	}
	defer db.Close()
	if sal.Files, err = QueryStrings(ctx, db, `SELECT path FROM files`); err != nil {
		sal.Problems = append(sal.Problems, fmt.Sprintf("the list of histories indexed cannot be read (%v): only those 'deja sources' finds are indexed again; 'deja index PATH' indexes the others", err))
	}
	// A path kept in its keyed form is no path to read again.
	sal.Files = slices.DeleteFunc(sal.Files, isKeyedPath)
	if sal.Sessions, err = salvageSessions(ctx, db, `SELECT id, path FROM sessions`); err != nil {
		if sal.Sessions = segmentSessions(dir); len(sal.Sessions) > 0 {
			sal.Problems = append(sal.Problems, fmt.Sprintf("the list of sessions cannot be read (%v): those the vector segments name (with their project) stand for it", err))
		} else {
			sal.Problems = append(sal.Problems, fmt.Sprintf("the list of sessions cannot be read (%v): those whose histories are gone cannot be named", err))
		}
	}
	if sal.Tombstones, err = salvageSessions(ctx, db, `SELECT session_id, path FROM tombstones`); err != nil {
		sal.Problems = append(sal.Problems, fmt.Sprintf("the list of forgotten sessions cannot be read (%v): a session you forgot may be back; 'deja forget' it again", err))
	}
}

// segmentSessions are the sessions the vector segments in dir name, with
// their project for a path: each segment block lists the sessions of its
// vectors, so a store whose database is lost still says what it held.
func segmentSessions(dir string) []SalvagedSession {
	files, _ := filepath.Glob(filepath.Join(dir, segment.VectorDir, "*.seg"))
	seen := map[string]bool{}
	var out []SalvagedSession
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		if err == nil {
			layout, _ := segment.LayoutSegment(f, fi.Size(), 0)
			for i := range layout.Set.Sessions.Len() {
				m := layout.Set.Sessions.At(i)
				if !seen[m.Id] {
					seen[m.Id] = true
					out = append(out, SalvagedSession{ID: m.Id, Path: m.Project})
				}
			}
		}
		f.Close()
	}
	return out
}

func salvageSessions(ctx context.Context, db *sql.DB, query string) ([]SalvagedSession, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SalvagedSession
	for rows.Next() {
		var s SalvagedSession
		if err := rows.Scan(&s.ID, &s.Path); err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Restore writes the tombstones salvaged from a store set aside into this
// one, before it indexes, so that the sessions forgotten there are not
// indexed again.
func (s *Store) Restore(ctx context.Context, sal *Salvage) error {
	if len(sal.Tombstones) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, t := range sal.Tombstones {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO tombstones(session_id, path, forgotten) VALUES (?, ?, ?)`, t.ID, t.Path, time.Now().Unix()); err != nil {
				return err
			}
		}
		return nil
	})
}

// Lost are the sessions of a store set aside that this one does not hold:
// what a rebuild could not bring back, their histories being gone (or
// changed), or a team member's not yet synced again.
func (s *Store) Lost(ctx context.Context, sal *Salvage) ([]SalvagedSession, error) {
	var lost []SalvagedSession
	for _, old := range sal.Sessions {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ?`, old.ID).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			lost = append(lost, old)
		}
	}
	return lost, nil
}
