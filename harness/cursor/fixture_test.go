package cursor

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// unpackHome writes a txtar fixture's files under a scratch home and
// returns it: a file named *.sql is run as SQL into a SQLite store of the
// name without .sql, as Cursor's own stores hold them.
func unpackHome(t testing.TB, fixture string) string {
	t.Helper()
	ar, err := txtar.ParseFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(home, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if db, ok := strings.CutSuffix(p, ".sql"); ok {
			writeStore(t, db, string(f.Data))
			continue
		}
		data := f.Data
		if strings.HasSuffix(p, ".jsonl") && strings.HasSuffix(string(data), "half writ\n") {
			// A last line still being written has no line end.
			data = data[:len(data)-1]
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// writeStore runs script into a new SQLite store at path, in WAL mode as
// Cursor runs its stores.
func writeStore(t testing.TB, path, script string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
