package opencode

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// loadSQL builds a store from testdata/schema.sql and a fixture's inserts,
// as OpenCode's own store would hold them, and returns its path.
func loadSQL(t testing.TB, fixture string) string {
	t.Helper()
	schema, err := os.ReadFile("testdata/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, script := range [][]byte{schema, rows} {
		if _, err := db.Exec(string(script)); err != nil {
			t.Fatalf("%s: %v", fixture, err)
		}
	}
	return path
}

// unpackTree writes a txtar fixture's files into a scratch directory and
// returns the storage directory inside it.
func unpackTree(t testing.TB, fixture string) string {
	t.Helper()
	ar, err := txtar.ParseFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "storage")
}

// openForTest opens a store read-only for a test's own queries.
func openForTest(path string) (*sql.DB, error) {
	return sql.Open("sqlite", storeDSN(path, true))
}
