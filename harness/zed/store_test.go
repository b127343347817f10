package zed

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

const currentStore = ".local/share/zed/threads/threads.db"

// fixtureStore unpacks a fixture and returns the path of its store.
func fixtureStore(t *testing.T, fixture, store string) string {
	t.Helper()
	return filepath.Join(unpackHome(t, filepath.Join("testdata", fixture)), filepath.FromSlash(store))
}

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

func writeStore(t testing.TB, path, script string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script, args...); err != nil {
		t.Fatal(err)
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

// TestReadOnly checks that reading the store leaves it and its WAL as
// they were: Zed's threads are Zed's.
func TestReadOnly(t *testing.T) {
	path := fixtureStore(t, "current.txtar", currentStore)
	before := fileState(t, path)
	for range 2 {
		read(t, path, nil)
	}
	if after := fileState(t, path); after != before {
		t.Errorf("the store changed: %s, then %s", before, after)
	}
}

// TestUnchanged reads the store twice, the second time with every marker
// the first gave: no document is read again. Then Zed saves one thread
// again (a new updated_at and document) and only it is read.
func TestUnchanged(t *testing.T) {
	path := fixtureStore(t, "current.txtar", currentStore)
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
	writeStore(t, path, `UPDATE threads SET updated_at = '2026-03-02T09:20:00+00:00', data_type = 'json', data = ? WHERE id LIKE '2222%'`,
		`{"version":"0.3.0","messages":[{"User":{"content":[{"Text":"Find every caller of tax()"}]}},{"Agent":{"content":[{"Text":"Three callers."}],"tool_results":{}}}]}`)
	var got []string
	for _, s := range read(t, path, markers).Sessions {
		if len(s.Messages) > 0 {
			got = append(got, s.ID)
			if s.Marker == markers[s.ID] || s.Messages[1].Text != "Three callers." {
				t.Errorf("%s: marker %q, messages %+v", s.ID, s.Marker, s.Messages)
			}
		}
	}
	if want := "zed-22222222-2222-4222-8222-222222222222"; strings.Join(got, " ") != want {
		t.Errorf("after a save, read again %v, want %v", got, want)
	}

}

// TestWAL reads a thread Zed committed to the write-ahead log and has not
// yet copied into the store: a store is never read without its log.
func TestWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), storeName)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema + `INSERT INTO threads (id, summary, updated_at, data_type, data, created_at) VALUES ('11111111-1111-4111-8111-111111111111', 't', '2026-03-02T09:00:00+00:00', 'json',
		'{"version":"0.3.0","messages":[{"User":{"content":[{"Text":"only in the log"}]}}]}', '2026-03-02T09:00:00+00:00');`); err != nil {
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
}

// TestNotPlain refuses a store whose threads are a view (which could
// yield rows without end) rather than read through it.
func TestNotPlain(t *testing.T) {
	path := filepath.Join(t.TempDir(), storeName)
	writeStore(t, path, `CREATE VIEW threads AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r)
		SELECT 'id' || n AS id, 's' AS summary, '2026-01-01T00:00:00+00:00' AS updated_at, 'json' AS data_type, '{}' AS data FROM r;`)
	_, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
	if !errors.Is(err, errNotPlain) {
		t.Fatalf("err = %v, want one wrapping %v", err, errNotPlain)
	}
}

// TestBounds leaves unread a document stored in more bytes than the line
// bound, and one that decompresses to more than the decoded bound (a zstd
// frame of a few hundred bytes can decompress to gigabytes), and reads
// the rest.
func TestBounds(t *testing.T) {
	path := fixtureStore(t, "current.txtar", currentStore)
	for _, c := range []struct {
		lim  harness.Limits
		want string
	}{
		{harness.Limits{Line: 900}, "skipped threads over deja's size bound: 1"},
		{harness.Limits{Decoded: 1000}, "skipped threads over deja's size bound: 2"},
	} {
		h, err := ReadStore(context.Background(), path, nil, c.lim)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(h.Warnings, "\n") != c.want || len(h.Sessions) != 3 {
			t.Errorf("%+v: %d sessions, warnings %q, want %q", c.lim, len(h.Sessions), h.Warnings, c.want)
		}
		for _, s := range h.Sessions {
			if s.ID == "zed-22222222-2222-4222-8222-222222222222" && len(s.Messages) != 2 {
				t.Errorf("%+v: the small thread was not read: %+v", c.lim, s.Messages)
			}
		}
	}
}
