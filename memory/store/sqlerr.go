package store

import (
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

func isNoTable(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such table")
}

// isBusy reports SQLite's "database is locked": another connection holds
// a lock that the busy timeout did not wait for.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// ErrDiskFull reports a write that failed because the disk is full.
var ErrDiskFull = errors.New("disk full")

// diskHint turns SQLite's full-disk error into ErrDiskFull with what to do.
func diskHint(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL {
		return fmt.Errorf("%w: free some space and run the command again (what was committed before is kept): %v", ErrDiskFull, err)
	}
	return err
}

// isCantOpen reports SQLite's "unable to open database file": among
// other causes, the -wal or -shm file it could not create.
func isCantOpen(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CANTOPEN
}

// ErrReadOnly reports a write to a store opened read-only.
var ErrReadOnly = errors.New("the store is read-only")

// ErrDamaged reports a store whose database or vector files do not check
// out.
var ErrDamaged = errors.New("the store is damaged")

// RebuildCommand rebuilds a damaged store from the histories.
const RebuildCommand = "deja index --rebuild"

// Explain turns SQLite's errors for a damaged database file (not a
// database, malformed) into ErrDamaged, and its error for a write it may
// not make into ErrReadOnly, each with what to do next; other errors are
// returned as they are.
func Explain(err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) || errors.Is(err, ErrDamaged) || errors.Is(err, ErrReadOnly) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("%w: %v; 'deja doctor' checks it, and '%s' moves it aside and rebuilds it from the histories", ErrDamaged, err, RebuildCommand)
	case sqlite3.SQLITE_READONLY:
		return fmt.Errorf("%w (its data directory cannot be written): %v; reading commands work, and writing ones need write permission on the data directory (or DEJA_DATA_DIR set to another)", ErrReadOnly, err)
	}
	return err
}
