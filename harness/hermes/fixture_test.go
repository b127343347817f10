package hermes

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// unpackHome writes a txtar fixture's files under a scratch home and
// returns it: a file named *.sql is run into a SQLite store of the name
// without .sql, in WAL mode as Hermes runs its store, after
// testdata/schema.sql unless it makes its own tables.
func unpackHome(t testing.TB, fixture string) string {
	t.Helper()
	schema := string(harnesstest.ReadFixture(t, "schema.sql"))
	return harnesstest.Unpack(t, fixture, func(p string, data []byte) {
		db, ok := strings.CutSuffix(p, ".sql")
		if !ok {
			harnesstest.WriteFile(t, p, string(data))
			return
		}
		if strings.Contains(string(data), "CREATE TABLE") {
			harnesstest.SQLiteStore(t, db, string(data))
			return
		}
		harnesstest.SQLiteStore(t, db, schema, string(data))
	})
}
