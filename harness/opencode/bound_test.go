package opencode

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"
)

// storeWith builds a store from the fixture schema less the named
// tables, then runs the statements, and returns its path.
func storeWith(t *testing.T, drop []string, stmts ...string) string {
	t.Helper()
	path := loadSQL(t, "testdata/subagent_child_session.sql")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range drop {
		stmts = append([]string{"DROP TABLE " + name}, stmts...)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return path
}

// TestStoreOfViewsIsRefused: a 20 KB store whose part "table" was a
// recursive view yielding rows without end grew memory past 8 GB; a store
// whose tables are not plain tables is refused before anything is read.
// The context's deadline only guards the test from the unbounded read.
func TestStoreOfViewsIsRefused(t *testing.T) {
	const endless = `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)`
	for _, tc := range []struct {
		name  string
		drop  []string
		stmts []string
		want  string
	}{
		{"a recursive view", []string{"part"}, []string{`CREATE VIEW part AS ` + endless +
			` SELECT 'prt_' || n AS id, 'msg_C1u' AS message_id, 'ses_C1' AS session_id, n AS time_created, n AS time_updated, '{"type":"text","text":"again"}' AS data FROM r`},
			"its part is a view, not a table"},
		{"a view of messages", []string{"message"}, []string{`CREATE VIEW message AS ` + endless +
			` SELECT 'msg_' || n AS id, 'ses_C1' AS session_id, n AS time_created, n AS time_updated, '{"role":"user"}' AS data FROM r`},
			"its message is a view, not a table"},
		{"a generated column", []string{"part"}, []string{"CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer, time_updated integer, data text AS (hex(zeroblob(1000))))"},
			"its part table has generated columns"},
		{"no session table", []string{"session"}, nil, "it has no session table"},
	} {
		path := storeWith(t, tc.drop, tc.stmts...)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		h, err := ReadStore(ctx, path, nil)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, %v; want it refused: %q", tc.name, h, err, tc.want)
		}
	}
}

// TestUnchangedSessionsAreNotRead: a session the caller holds with the
// marker it has now comes back with its ID and marker alone, its rows
// unread, so a store with nothing new is not read whole; a part added or
// deleted changes the marker.
func TestUnchangedSessionsAreNotRead(t *testing.T) {
	path := loadSQL(t, "testdata/subagent_child_session.sql")
	ctx := context.Background()
	full, err := ReadStore(ctx, path, nil)
	if err != nil || len(full.Sessions) != 2 {
		t.Fatalf("%v, %v", full, err)
	}
	markers := map[string]string{}
	for _, s := range full.Sessions {
		markers[s.ID] = s.Marker
	}
	held := func(id, marker string) bool { return id == "opencode-ses_C1" && markers[id] == marker }
	// A damaged row in the held session: read, it would be a warning.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE part SET data = '{broken' WHERE id = 'prt_C1a2'`); err != nil {
		t.Fatal(err)
	}
	h, err := ReadStore(ctx, path, held)
	if err != nil || len(h.Sessions) != 2 {
		t.Fatalf("%v, %v", h, err)
	}
	if s := h.Sessions[0]; s.ID != "opencode-ses_C1" || s.Marker != markers[s.ID] || len(s.Messages) != 0 || len(h.Warnings) != 0 {
		t.Errorf("held session %+v, warnings %v; want its ID and marker alone, nothing read", s, h.Warnings)
	}
	if s := h.Sessions[1]; s.Marker != markers[s.ID] || len(s.Messages) == 0 {
		t.Errorf("other session %+v; want it read", s)
	}
	for _, stmt := range []string{
		`INSERT INTO part VALUES ('prt_C1a3', 'msg_C1a', 'ses_C1', 1, 1, '{"type":"text","text":"late"}')`,
		`DELETE FROM part WHERE id IN ('prt_C1a2', 'prt_C1a3')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
		h, err := ReadStore(ctx, path, held)
		if err != nil || len(h.Sessions[0].Messages) == 0 {
			t.Errorf("after %s: %+v, %v; want the session read again", stmt, h.Sessions[0], err)
		}
	}
}
