package crush

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// fixtureStore unpacks a fixture and returns the path of its store.
func fixtureStore(t *testing.T, fixture, store string) string {
	t.Helper()
	return filepath.Join(unpackHome(t, filepath.Join("testdata", fixture)), filepath.FromSlash(store))
}

const toolsStore = "code/shop/.crush/crush.db"

func read(t *testing.T, path string, markers map[string]string) *harness.History {
	t.Helper()
	opts := harness.ParseOptions{Path: path}
	if markers != nil {
		opts.Unchanged = func(id, m string) bool { return markers[id] == m }
	}
	h, err := harness.ReadStore(context.Background(), Reader{}, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestReadOnly checks that reading a store leaves it as it was, and its
// WAL when it has one (SQLite may make an empty one, and the -shm index,
// beside a store in WAL mode whose writer closed: Crush reopens them as
// they are).
func TestReadOnly(t *testing.T) {
	path := fixtureStore(t, "tools.txtar", toolsStore)
	before := fileState(t, path)
	for range 2 {
		read(t, path, nil)
	}
	if after := fileState(t, path); after != before {
		t.Errorf("the store changed: %s, then %s", before, after)
	}
}

func fileState(t *testing.T, path string) string {
	var out []string
	for _, p := range []string{path, path + "-wal"} {
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) || err == nil && len(data) == 0 {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%x %d", sha256.Sum256(data), fi.ModTime().UnixNano()))
	}
	return strings.Join(out, " ")
}

// TestUnchanged reads a store twice, the second time with every marker the
// first gave: nothing is read again. Then a message grows within the
// second it was written in, as Crush's streaming updates do, and only its
// session is read again; then one is deleted.
func TestUnchanged(t *testing.T) {
	path := fixtureStore(t, "tools.txtar", toolsStore)
	first := read(t, path, nil)
	markers := map[string]string{}
	for _, s := range first.Sessions {
		if s.Marker == "" {
			t.Fatalf("%s has no marker", s.ID)
		}
		markers[s.ID] = s.Marker
	}
	for _, s := range read(t, path, markers).Sessions {
		if len(s.Messages) > 0 || s.Marker != markers[s.ID] {
			t.Errorf("%s read again though unchanged", s.ID)
		}
	}
	reread := func(script string) []string {
		t.Helper()
		writeStore(t, path, script)
		var out []string
		for _, s := range read(t, path, markers).Sessions {
			if len(s.Messages) > 0 {
				out = append(out, s.ID)
				if s.Marker == markers[s.ID] {
					t.Errorf("%s changed but kept its marker", s.ID)
				}
				markers[s.ID] = s.Marker
			}
		}
		return out
	}
	// The same updated_at, longer parts.
	got := reread(`UPDATE messages SET parts = '[{"type":"text","data":{"text":"Yes, at start-up, and cached."}}]' WHERE parts LIKE '%Yes, at start-up.%'`)
	if want := "crush-22222222-2222-4222-8222-222222222222"; strings.Join(got, " ") != want {
		t.Errorf("after a message grew, read again %v, want %v", got, want)
	}
	got = reread(`DELETE FROM messages WHERE parts LIKE '%is the tax table%'`)
	if want := "crush-22222222-2222-4222-8222-222222222222"; strings.Join(got, " ") != want {
		t.Errorf("after a message went, read again %v, want %v", got, want)
	}
}

func writeStore(t testing.TB, path, script string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatal(err)
	}
}

// TestWAL reads rows Crush committed to the write-ahead log and has not
// yet copied into the store: a store is never read without its log.
func TestWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".crush", storeName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// Crush's connection, held open, never checkpoints here.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema + `INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('11111111-1111-4111-8111-111111111111', 't', 1766656800, 1766656800);
INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('m1', '11111111-1111-4111-8111-111111111111', 'user', '[{"type":"text","data":{"text":"only in the log"}}]', 1766656800, 1766656800);`); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no write-ahead log: %v", err)
	}
	before := fileState(t, path)
	h := read(t, path, nil)
	if after := fileState(t, path); after != before {
		t.Errorf("the store or its log changed: %s, then %s", before, after)
	}
	if len(h.Sessions) != 1 || len(h.Sessions[0].Messages) != 1 || h.Sessions[0].Messages[0].Text != "only in the log" {
		t.Fatalf("read %+v, warnings %q", h.Sessions, h.Warnings)
	}
	if h.Sessions[0].Project != filepath.Dir(filepath.Dir(path)) {
		t.Errorf("project %q", h.Sessions[0].Project)
	}
}

// TestNotPlain refuses a store whose messages are a view (which could
// yield rows without end) rather than read through it.
func TestNotPlain(t *testing.T) {
	path := filepath.Join(t.TempDir(), storeName)
	writeStore(t, path, `CREATE TABLE sessions (id TEXT, parent_session_id TEXT, created_at INTEGER, updated_at INTEGER);
CREATE VIEW messages AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT 'x' AS session_id, 'user' AS role, '[]' AS parts, n AS created_at, n AS updated_at FROM r;`)
	_, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
	if !errors.Is(err, errNotPlain) {
		t.Fatalf("err = %v, want one wrapping %v", err, errNotPlain)
	}
}
