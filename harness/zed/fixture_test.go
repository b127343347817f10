package zed

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// schema is the threads table as Zed leaves it (ThreadsDatabase::new in
// crates/agent/src/db.rs): its CREATE TABLE, then the columns its ALTER
// TABLEs add.
const schema = `CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL,
	data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT);
`

// unpackHome writes a txtar fixture's files under a scratch home and
// returns it, $HOME in them written as the home: a file named *.sql is
// run as SQL into a SQLite store of the name without .sql, after schema
// unless it makes its own table, in WAL mode; then every zstd row whose
// data is JSON text is compressed as Zed compresses it (zstd level 3), so
// a fixture states the documents it holds. A zstd row of other data is
// left as damage.
func unpackHome(t testing.TB, fixture string) string {
	t.Helper()
	type file struct {
		path string
		data []byte
	}
	var files []file
	home := harnesstest.Unpack(t, fixture, func(p string, data []byte) { files = append(files, file{p, data}) })
	for _, f := range files {
		text := strings.ReplaceAll(string(f.data), "$HOME", filepath.ToSlash(home))
		db, ok := strings.CutSuffix(f.path, ".sql")
		if !ok {
			harnesstest.WriteFile(t, f.path, text)
			continue
		}
		if !strings.Contains(text, "CREATE TABLE") {
			text = schema + text
		}
		harnesstest.SQLiteStore(t, db, text)
		compressRows(t, db)
	}
	return home
}

// compressRows compresses the zstd rows of the store at path whose data
// is JSON text.
func compressRows(t testing.TB, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, CAST(data AS BLOB) FROM threads WHERE data_type = 'zstd' AND CAST(data AS TEXT) LIKE '{%'`)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{}
	for rows.Next() {
		var id string
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			t.Fatal(err)
		}
		docs[id] = data
	}
	rows.Close()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		t.Fatal(err)
	}
	for id, doc := range docs {
		if _, err := db.Exec(`UPDATE threads SET data = ? WHERE id = ?`, enc.EncodeAll(doc, nil), id); err != nil {
			t.Fatal(err)
		}
	}
}

// withoutRanges drops the byte ranges, which a store's sessions do not
// have, so CheckInvariants checks the rest.
func withoutRanges(ss []harness.Session) []harness.Session {
	out := append([]harness.Session(nil), ss...)
	for i := range out {
		out[i].Offset, out[i].End = 0, 0
	}
	return out
}
