package cursor

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// unpackHome writes a txtar fixture's files under a scratch home and
// returns it: a file named *.sql is run as SQL into a SQLite store of the
// name without .sql, as Cursor's own stores hold them.
func unpackHome(t testing.TB, fixture string) string {
	t.Helper()
	return harnesstest.Unpack(t, fixture, func(p string, data []byte) {
		if db, ok := strings.CutSuffix(p, ".sql"); ok {
			writeStore(t, db, string(data))
			return
		}
		if strings.HasSuffix(p, ".jsonl") && strings.HasSuffix(string(data), "half writ\n") {
			// A last line still being written has no line end.
			data = data[:len(data)-1]
		}
		harnesstest.WriteFile(t, p, string(data))
	})
}

// writeStore runs script into a new SQLite store at path, in WAL mode as
// Cursor runs its stores.
func writeStore(t testing.TB, path, script string) { harnesstest.SQLiteStore(t, path, script) }
