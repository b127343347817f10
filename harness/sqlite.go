package harness

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver deja already links, registered as "sqlite"
)

// An agent's SQLite store (OpenCode's opencode.db, Cursor's state.vscdb
// and cursor-agent chats) is a file anyone can hand deja, which its agent
// may be writing while deja reads. The functions below are how every
// reader opens one: read-only, inside one read transaction so its tables
// are read at one moment, with its write-ahead log (committed rows may
// live only there, so a store is never copied alone), through tables that
// must be plain ones (a view, say a recursive one yielding rows without
// end, a virtual table or a generated column runs code of the file's
// choosing on every read).

// StoreDSN is the data source name that opens the SQLite store at path
// read-only (immutable: without locks or the WAL), with no memory map: its pages would count in deja's resident memory up
// to the store's size (a 340 MB OpenCode store re-indexed with nothing new
// held 366 MB mapped, 38 MB without), and read calls per page read within
// a tenth of its rate.
func StoreDSN(path string, immutable bool) string {
	if abs, err := filepath.Abs(path); err == nil {
		// A relative path would read as a URI authority.
		path = abs
	}
	q := url.Values{}
	q.Set("mode", "ro")
	if immutable {
		q.Set("immutable", "1")
	}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "mmap_size(0)")
	return (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
}

// OpenStore opens the SQLite store at path read-only and begins one read
// transaction; end rolls it back (a read-only transaction changes
// nothing) and closes the store. immutable reads the main file without
// locks and without the write-ahead log.
func OpenStore(ctx context.Context, path string, immutable bool) (tx *sql.Tx, end func(), err error) {
	db, err := sql.Open("sqlite", StoreDSN(path, immutable))
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(1)
	if tx, err = db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}); err != nil {
		db.Close()
		return nil, nil, err
	}
	return tx, func() { _ = tx.Rollback(); db.Close() }, nil
}

// ReadSQLite reads the SQLite store at path through read, inside OpenStore's
// transaction. When that fails for any reason but notPlain (a store that
// is refused is refused both ways), say a read-only directory that holds
// no -shm, the store is read again as immutable and a warning says the
// newest messages may be missing. harness and what name the reader and
// the file it expects, for the error ("opencode", "OpenCode's
// opencode.db").
func ReadSQLite(ctx context.Context, path, harness, what string, notPlain error, read func(tx *sql.Tx) (*History, error)) (*History, error) {
	readOnce := func(immutable bool) (*History, error) {
		tx, end, err := OpenStore(ctx, path, immutable)
		if err != nil {
			return nil, err
		}
		defer end()
		return read(tx)
	}
	h, err := readOnce(false)
	if err == nil || errors.Is(err, notPlain) {
		return h, err
	}
	h, err2 := readOnce(true)
	if err2 != nil {
		return nil, fmt.Errorf("%s: cannot read %s: %w; check that it is %s and readable", harness, path, err, what)
	}
	h.Warnings = append(h.Warnings, fmt.Sprintf("%s could not be opened with its write-ahead log (%v); read without it, so the newest messages may be missing", path, err))
	return h, nil
}

// PlainTable reports whether the store has the table name (in any case),
// failing with an error that wraps notPlain when it is a view, a virtual
// table or has generated columns.
func PlainTable(ctx context.Context, tx *sql.Tx, name string, notPlain error) (bool, error) {
	var kind, def string
	err := tx.QueryRowContext(ctx, `SELECT type, COALESCE(sql, '') FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE`, name).Scan(&kind, &def)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if kind == "table" && strings.HasPrefix(strings.ToUpper(strings.TrimSpace(def)), "CREATE VIRTUAL") {
		kind = "virtual table"
	}
	if kind != "table" {
		return false, fmt.Errorf("its %s is a %s, not a table (%w)", name, kind, notPlain)
	}
	var generated int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_xinfo(?) WHERE hidden IN (2, 3)`, name).Scan(&generated); err != nil {
		return false, err
	}
	if generated > 0 {
		return false, fmt.Errorf("its %s table has generated columns (%w)", name, notPlain)
	}
	return true, nil
}
