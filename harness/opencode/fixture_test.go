package opencode

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// loadSQL builds a store from testdata/schema.sql and the inserts of a
// fixture of testdata, as OpenCode's own store would hold them, and
// returns its path.
func loadSQL(t testing.TB, fixture string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "opencode.db")
	schema, rows := harnesstest.ReadFixture(t, "schema.sql"), harnesstest.ReadFixture(t, filepath.Base(fixture))
	harnesstest.SQLiteStore(t, path, string(schema), string(rows))
	return path
}

// unpackTree writes a txtar fixture's files into a scratch directory and
// returns the storage directory inside it.
func unpackTree(t testing.TB, fixture string) string {
	t.Helper()
	return filepath.Join(harnesstest.Unpack(t, fixture, nil), "storage")
}

// openForTest opens a store read-only for a test's own queries.
func openForTest(path string) (*sql.DB, error) {
	return sql.Open("sqlite", harness.StoreDSN(path, true))
}
