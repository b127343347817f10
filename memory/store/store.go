package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/deja-dev/deja/memory/store/segment"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// DBFile is the store's database inside the data directory.
const DBFile = "deja.db"

// Store is an open deja store. It is safe for concurrent use; many
// processes may read it while one indexes.
type Store struct {
	dir string
	db  *sql.DB
	// readOnly is set when the data directory cannot be written: reads
	// work, writes fail with ErrReadOnly.
	readOnly bool

	// mu guards the history path state below.
	mu sync.Mutex
	// caches are what the packages above the store keep of it while it is
	// open (recall's loaded vectors and collections), by key; Invalidate
	// drops what they hold.
	cachesMu sync.Mutex
	caches   map[any]Cache
	// piece, when set, is how many vectors a one-shot recall reads at a
	// time (scan.go), so tests can cut a small store into many pieces.
	Piece int
	// floats are the pending floats of each open write transaction.
	floatsMu sync.Mutex
	floats   map[*sql.Tx]*segment.PendingFloats
	// pathKey is the key of the digests of history paths that hold a
	// secret, pathMarks the paths marked as spelling a cwd that holds
	// one, by digest, and rowPaths the form of each path a run asked for
	// (historypath.go); under mu, read by an index run.
	pathKey   []byte
	pathMarks map[string]string
	rowPaths  map[string]string
}

// Open opens the store in dir, creating the directory and the database when
// they do not exist, for a process that makes a few queries and exits (a
// long-running one opens it with OpenWarm).
func Open(ctx context.Context, dir string) (*Store, error) {
	return OpenWithCache(ctx, dir, OneShotCacheKB)
}

// oneShotCacheKB is the page cache of each connection of a store opened
// by Open, in KiB; SQLite's default is 2,000. A one-shot recall reads the
// rows of thousands of candidates once each, on several connections, and
// each fresh page of cache costs a page fault: at 100k turns a cold hybrid
// 'deja recall' took 0.34-0.35 s with 256 KiB and 0.36-0.41 s with the
// default (p50 of 7, bench/perf's queries, 4 rounds alternated), 8 MB less
// at its peak. A write transaction sets its own (writerPragmas).
const OneShotCacheKB = 256

// open is Open with a page cache of cacheKB KiB per connection, SQLite's
// default when 0.
func OpenWithCache(ctx context.Context, dir string, cacheKB int) (*Store, error) {
	// The store holds what people typed to their agents: only its owner
	// may read it.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: creating the data directory: %w (set DEJA_DATA_DIR to a writable directory)", err)
	}
	path := filepath.Join(dir, DBFile)
	s, err := openDB(ctx, dir, cacheKB, false)
	if err != nil && isCantOpen(err) && !Writable(dir) {
		// SQLite cannot create the -wal and -shm files beside a store in
		// a directory it may not write (a read-only mount, a backup
		// restored without write permission): read it as it is.
		if _, serr := os.Stat(path); serr == nil {
			s, err = openDB(ctx, dir, cacheKB, true)
		}
		if fi, werr := os.Stat(path + "-wal"); err != nil && isCantOpen(err) && werr == nil && fi.Size() > 0 {
			return nil, fmt.Errorf("%w: its data directory %s cannot be written, and the last transactions wait in %s-wal, which SQLite reads only with its -shm file beside it: run a deja command once with write access there (it folds them in), and it reads the store read-only after", ErrReadOnly, dir, DBFile)
		}
	}
	if err != nil {
		return nil, Explain(err)
	}
	if s.readOnly {
		return s, nil
	}
	// SQLite gives its -wal and -shm files the database file's mode.
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(f, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.db.Close()
			return nil, fmt.Errorf("store: making %s private: %w", f, err)
		}
	}
	return s, nil
}

// openDB opens the database of the store in dir, for writing unless
// readOnly, and brings its schema up to date (a read-only store must
// already be).
func openDB(ctx context.Context, dir string, cacheKB int, readOnly bool) (*Store, error) {
	path := filepath.Join(dir, DBFile)
	// WAL: readers see only committed transactions and never wait for the
	// writer. synchronous=NORMAL loses no committed data on a process kill,
	// only possibly the last transactions on power loss, never consistency.
	// BEGIN IMMEDIATE takes the write lock up front, so two writers wait
	// (busy_timeout) instead of failing on upgrade.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(15000)")
	if readOnly {
		q.Set("mode", "ro")
		// Without a write-ahead log beside it, the database file is the
		// whole store, and nobody can write it while the directory is
		// read-only: immutable reads it without the -shm file SQLite could
		// not create. A log left there is read through its -shm.
		if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
			q.Set("immutable", "1")
		}
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		// secure_delete zeroes freed content, so a forgotten session's
		// text does not linger in free pages of the database.
		q.Add("_pragma", "secure_delete(1)")
		q.Set("_txlock", "immediate")
	}
	q.Add("_pragma", "foreign_keys(1)")
	if cacheKB > 0 {
		q.Add("_pragma", fmt.Sprintf("cache_size(%d)", -cacheKB))
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	s := &Store{dir: dir, db: db, readOnly: readOnly}
	if err := s.migrateWaiting(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Writable reports whether this process may create files in dir, as
// the kernel decides it (permissions, a read-only mount): by creating
// one.
func Writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".deja-writable-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// ReadOnly reports whether the store was opened read-only, its data
// directory being one this process may not write.
func (s *Store) ReadOnly() bool { return s.readOnly }

// queryStrings runs a query of one text column and returns its values in
// row order.
func QueryStrings(ctx context.Context, db Reader, query string, args ...any) ([]string, error) {
	return QueryColumn[string](ctx, db, query, args...)
}

// queryColumn runs a query of one column and returns its values in row
// order.
func QueryColumn[T any](ctx context.Context, db Reader, query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Dir is the data directory the store lives in.
func (s *Store) Dir() string { return s.dir }

// Close releases the database.
func (s *Store) Close() error { return s.db.Close() }

// openBusyWait bounds how long Open waits for another process that is
// creating or upgrading the store.
const openBusyWait = 15 * time.Second

// migrateWaiting is migrate, tried again while another process holds the
// new store's locks: while one process turns a new database to WAL and
// creates its schema, SQLite answers another's first read with
// SQLITE_BUSY without calling the busy handler, so busy_timeout does not
// cover it (two 'deja index' runs started together on a new store).
func (s *Store) migrateWaiting(ctx context.Context) error {
	deadline := time.Now().Add(openBusyWait)
	for pause := 10 * time.Millisecond; ; pause = min(2*pause, 200*time.Millisecond) {
		err := s.migrate(ctx)
		if !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}

func (s *Store) migrate(ctx context.Context) error {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&v)
	switch {
	case err == nil && v == SchemaVersion:
		return nil
	case err == nil && upgrades[v].sql != "":
		return s.upgrade(ctx, v)
	case err == nil:
		return fmt.Errorf("store: %s has schema %q, this deja reads %s: a newer deja wrote it (use that one), or it is damaged ('deja doctor' checks it, and '%s' moves it aside and rebuilds it from the histories)", s.dir, v, SchemaVersion, RebuildCommand)
	case errors.Is(err, sql.ErrNoRows) || isNoTable(err):
	default:
		return fmt.Errorf("store: reading %s: %w", filepath.Join(s.dir, DBFile), err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: creating the schema: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("store: creating the schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)`, SchemaVersion); err != nil {
		return fmt.Errorf("store: creating the schema: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: creating the schema: %w", diskHint(err))
	}
	// Incremental auto-vacuum lets an index run give its free pages back
	// (releaseFree). The write-ahead log has already written the new
	// database's header, so it takes a vacuum, of an empty store here.
	s.vacuum(ctx)
	return nil
}

// upgrade applies the upgrades from version v to schemaVersion in one
// transaction, so a store is never left between two versions.
func (s *Store) upgrade(ctx context.Context, v string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: upgrading the schema: %w", err)
	}
	defer tx.Rollback()
	if err := tunedForWriting(ctx, tx); err != nil {
		return fmt.Errorf("store: upgrading the schema: %w", err)
	}
	indexOnly := true
	for v != SchemaVersion {
		u, ok := upgrades[v]
		if !ok {
			return fmt.Errorf("store: no upgrade from schema %s: move the directory away and run 'deja index' to rebuild", v)
		}
		if _, err := tx.ExecContext(ctx, u.sql); err != nil {
			return fmt.Errorf("store: upgrading the schema from %s: %w", v, diskHint(err))
		}
		indexOnly = indexOnly && u.indexOnly
		v = u.to
	}
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'schema'`, SchemaVersion); err != nil {
		return fmt.Errorf("store: upgrading the schema: %w", err)
	}
	if indexOnly {
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store: upgrading the schema: %w", diskHint(err))
		}
		return nil
	}
	sum, err := LedgerSum(ctx, tx)
	if err == nil {
		_, err = tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = ?`, sum, LedgerKey)
	}
	if err != nil {
		return fmt.Errorf("store: upgrading the schema: %w", diskHint(err))
	}
	obsolete, err := s.flushVectors(ctx, tx, false)
	if err != nil {
		return fmt.Errorf("store: upgrading the schema: %w", diskHint(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: upgrading the schema: %w", diskHint(err))
	}
	segment.RemoveSegments(obsolete)
	s.vacuum(ctx)
	return nil
}

// vacuum gives back the pages an upgrade left free and turns on
// incremental auto-vacuum. Best effort: without it the store works as
// well, only larger.
func (s *Store) vacuum(ctx context.Context) {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err == nil {
		_, _ = c.ExecContext(ctx, `VACUUM`)
	}
}

// releaseFree gives the database's free pages back to the disk: a write
// frees pages as the keyword index merges and the pending floats leave,
// and reuses them in the next, so only the end of a run gives them back.
// Best effort, like a checkpoint.
func (s *Store) ReleaseFree(ctx context.Context) {
	_, _ = s.db.ExecContext(ctx, `PRAGMA incremental_vacuum`)
}

// Cache is what a package above the store keeps of an open store (recall's
// loaded vectors, say): the store knows it only as something to drop when
// its rows change under it.
type Cache interface {
	// Invalidate drops what the cache holds; the next use reads the
	// store again.
	Invalidate()
}

// cacheFor returns the store's cache under key, made by make the first
// time it is asked for.
func (s *Store) CacheFor(key any, make func() Cache) Cache {
	s.cachesMu.Lock()
	defer s.cachesMu.Unlock()
	c, ok := s.caches[key]
	if !ok {
		if s.caches == nil {
			s.caches = map[any]Cache{}
		}
		c = make()
		s.caches[key] = c
	}
	return c
}

// Invalidate drops what every cache of the store holds, so the next recall
// reads the store again; an index run, a forget and an import call it once
// they have written.
func (s *Store) Invalidate() {
	s.cachesMu.Lock()
	caches := make([]Cache, 0, len(s.caches))
	for _, c := range s.caches {
		caches = append(caches, c)
	}
	s.cachesMu.Unlock()
	for _, c := range caches {
		c.Invalidate()
	}
}

// Reader is how the code above the store reads its database: queries,
// never a write.
type Reader interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// read is the store's database, for reading.
func (s *Store) Read() Reader { return s.db }

// readConn is a connection of its own to the store's database, for a
// reader that keeps temporary tables on it (recall's vocabulary) or runs
// several queries on one connection; it must be closed.
func (s *Store) ReadConn(ctx context.Context) (*sql.Conn, error) { return s.db.Conn(ctx) }

// keepIdleConns keeps up to n connections open between queries (a
// long-running reader).
func (s *Store) KeepIdleConns(n int) { s.db.SetMaxIdleConns(n) }

// checkFTS runs the keyword index's own integrity check, which SQLite
// runs as an INSERT (a read-only store cannot).
func (s *Store) CheckFTS(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO turns_fts(turns_fts) VALUES ('integrity-check')`)
	return err
}
