package memtest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
)

// fixture copies testdata/history.md to a temp project and opens a store.
func Fixture(t *testing.T) (*store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	project := filepath.Join(dir, "shop")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../testdata/history.md")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(project, aider.HistoryFileName)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	path, err = userfile.ResolvePath(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(context.Background(), filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// rawDB is a connection of the test's own to the store's database, for
// reading what it holds and for damaging it, as another process would.
// It is opened once per test and store, and closed when the test ends.
func RawDB(t testing.TB, s *store.Store) *sql.DB {
	t.Helper()
	type key struct {
		t   testing.TB
		dir string
	}
	k := key{t, s.Dir()}
	if db, ok := rawDBs.Load(k); ok {
		return db.(*sql.DB)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.Dir(), store.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	// No connection is kept between queries: one left open would keep the
	// write-ahead log from being checkpointed away when the store closes.
	db.SetMaxIdleConns(0)
	rawDBs.Store(k, db)
	t.Cleanup(func() {
		rawDBs.Delete(k)
		db.Close()
	})
	return db
}

var rawDBs sync.Map
