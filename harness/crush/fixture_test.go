package crush

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// schema is a Crush store's tables as its migrations leave them (through
// 20260127000000_add_read_files_table.sql in internal/db/migrations),
// written from their column lists, with their indexes and the trigger
// that counts a session's messages.
const schema = `CREATE TABLE sessions (
	id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
	message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
	updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
	version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE messages (
	id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL DEFAULT '[]',
	model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER,
	provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL);
CREATE TABLE read_files (session_id TEXT NOT NULL, path TEXT NOT NULL, read_at INTEGER NOT NULL, PRIMARY KEY (path, session_id));
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE INDEX idx_messages_created_at ON messages (created_at);
CREATE INDEX idx_sessions_created_at ON sessions (created_at);
CREATE TRIGGER count_messages AFTER INSERT ON messages BEGIN
	UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
`

// unpackHome writes a txtar fixture's files under a scratch home and
// returns it, $HOME in them written as the home: a file named *.sql is
// run as SQL into a SQLite store of the name without .sql, after schema
// unless it makes its own tables, in WAL mode as Crush runs its stores.
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
	}
	return home
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
