package memory

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
