package cursor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// fixtureStore unpacks a fixture and returns the path of one of its stores.
func fixtureStore(t *testing.T, fixture, store string) string {
	t.Helper()
	return filepath.Join(unpackHome(t, filepath.Join("testdata", fixture)), filepath.FromSlash(store))
}

const globalStore2025 = ".config/Cursor/User/globalStorage/state.vscdb"

// TestOnlyChatKeys reads a global store that holds login tokens, other
// keys and a conversation's encryption keys beside its chats, and checks
// that none of them reaches anything the reader returns: sessions,
// markers, warnings or refusals.
func TestOnlyChatKeys(t *testing.T) {
	path := fixtureStore(t, "ide_2025.txtar", globalStore2025)
	h, err := harness.ReadStore(context.Background(), Reader{}, path, harness.ParseOptions{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Sessions) == 0 {
		t.Fatal("read no sessions")
	}
	out, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"TOKEN-ACCESS", "TOKEN-REFRESH", "someone@example.com", "CHECKPOINT", "NEIGHBOUR", "CASE-never", "KEY-never", "BLOBKEY", "THINKING", "RESULT-not", "WORKSPACE-never"} {
		if bytes.Contains(out, []byte(secret)) {
			t.Errorf("%s reached the reader's output", secret)
		}
	}
}

// TestReadOnly checks that reading a store leaves its file as it was.
func TestReadOnly(t *testing.T) {
	path := fixtureStore(t, "ide_2025.txtar", globalStore2025)
	before := fileState(t, path)
	for range 2 {
		if _, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if after := fileState(t, path); after != before {
		t.Errorf("the store changed: %s, then %s", before, after)
	}
}

func fileState(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x %d", sha256.Sum256(data), fi.ModTime().UnixNano())
}

// TestUnchanged reads a store twice, the second time with every marker
// the first gave: nothing is read again. Then one message of one
// conversation grows, and only that conversation is read again.
func TestUnchanged(t *testing.T) {
	path := fixtureStore(t, "ide_2025.txtar", globalStore2025)
	read := func(markers map[string]string) *harness.History {
		t.Helper()
		opts := harness.ParseOptions{}
		if markers != nil {
			opts.Unchanged = func(id, m string) bool { return markers[id] == m }
		}
		h, err := (Reader{}).Read(context.Background(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	first := read(nil)
	markers := map[string]string{}
	for _, s := range first.Sessions {
		if s.Marker == "" {
			t.Fatalf("%s has no marker", s.ID)
		}
		markers[s.ID] = s.Marker
	}
	for _, s := range read(markers).Sessions {
		if len(s.Messages) > 0 || s.Marker != markers[s.ID] {
			t.Errorf("%s read again though unchanged", s.ID)
		}
	}
	writeStore(t, path, `UPDATE cursorDiskKV SET value = '{"type":2,"text":"Two routes skip it: /health, /metrics and /ready."}' WHERE key = 'bubbleId:22222222-2222-4222-8222-222222222222:s2'`)
	var reread []string
	for _, s := range read(markers).Sessions {
		if len(s.Messages) > 0 {
			reread = append(reread, s.ID)
			if s.Marker == markers[s.ID] {
				t.Errorf("%s changed but kept its marker", s.ID)
			}
		}
	}
	if want := []string{IDPrefix + "22222222-2222-4222-8222-222222222222"}; strings.Join(reread, " ") != strings.Join(want, " ") {
		t.Errorf("read again %v, want %v", reread, want)
	}
}

// TestNotPlain refuses a store whose chat table is a view, which would run
// a query of the file's choosing.
func TestNotPlain(t *testing.T) {
	path := filepath.Join(t.TempDir(), storeName)
	writeStore(t, path, `CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
		CREATE VIEW cursorDiskKV AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT 'composerData:' || i AS key, '{}' AS value FROM n;`)
	_, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
	if err == nil || !strings.Contains(err.Error(), "not a table") {
		t.Fatalf("got %v, want a refusal of the view", err)
	}
}

// TestOverLimit leaves a value over the bound unread, with a warning.
func TestOverLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), storeName)
	writeStore(t, path, fmt.Sprintf(`CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
		INSERT INTO cursorDiskKV VALUES ('composerData:11111111-1111-4111-8111-111111111111', '{"fullConversationHeadersOnly":[{"bubbleId":"a"},{"bubbleId":"b"}]}');
		INSERT INTO cursorDiskKV VALUES ('bubbleId:11111111-1111-4111-8111-111111111111:a', '{"type":1,"text":"kept"}');
		INSERT INTO cursorDiskKV VALUES ('bubbleId:11111111-1111-4111-8111-111111111111:b', zeroblob(%d));`, harness.MaxLine+1))
	h, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Sessions) != 1 || len(h.Sessions[0].Messages) != 1 || !strings.Contains(strings.Join(h.Warnings, "\n"), "messages over") {
		t.Fatalf("got %+v", h)
	}
}

// TestImmutableFallback reads a store in a directory it cannot write and
// whose WAL index is gone, which a read-only open with the log cannot do.
func TestImmutableFallback(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes any directory")
	}
	path := fixtureStore(t, "ide_2025.txtar", globalStore2025)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.Remove(path + "-shm")
	os.Remove(path + "-wal")
	dir := filepath.Dir(path)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	h, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Sessions) == 0 {
		t.Fatal("read no sessions")
	}
}

// TestAgentChatKeepsOnlyChat reads a cursor-agent chat: the system prompt,
// tool results and a message the root does not name never reach the
// output, and the project is the workspace whose md5 names the folder.
func TestAgentChatKeepsOnlyChat(t *testing.T) {
	home := unpackHome(t, filepath.Join("testdata", "agent_chat.txtar"))
	d := Discover(harness.DiscoverOptions{Home: home})
	if len(d.Sources) != 1 {
		t.Fatalf("found %d sources", len(d.Sources))
	}
	h, err := harness.ReadStore(context.Background(), Reader{}, d.Sources[0].Path, harness.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(h)
	for _, secret := range []string{"SYSTEM-not", "TOOLRESULT-not", "ORPHAN-not", "darwin"} {
		if bytes.Contains(out, []byte(secret)) {
			t.Errorf("%s reached the reader's output", secret)
		}
	}
	if len(h.Sessions) != 1 || h.Sessions[0].Project != "/Users/me/src/shop" {
		t.Fatalf("got %+v", h.Sessions)
	}
	again, err := harness.ReadStore(context.Background(), Reader{}, d.Sources[0].Path, harness.ParseOptions{Unchanged: func(id, m string) bool { return id == h.Sessions[0].ID && m == h.Sessions[0].Marker }})
	if err != nil || len(again.Sessions) != 1 || len(again.Sessions[0].Messages) != 0 {
		t.Fatalf("an unchanged chat was read again: %v %+v", err, again)
	}
}

// TestReadWhileWriting reads a store while a writer holds a transaction
// open on it, as Cursor does while it answers: the read neither waits nor
// sees the uncommitted row, and the writer then commits, so the reader
// held no lock it waits on.
func TestReadWhileWriting(t *testing.T) {
	path := fixtureStore(t, "ide_2025.txtar", globalStore2025)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE cursorDiskKV SET value = '{"type":2,"text":"UNCOMMITTED"}' WHERE key = 'bubbleId:22222222-2222-4222-8222-222222222222:s2'`); err != nil {
		t.Fatal(err)
	}
	h, err := (Reader{}).Read(ctx, path, harness.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(h); len(h.Sessions) == 0 || bytes.Contains(out, []byte("UNCOMMITTED")) || !bytes.Contains(out, []byte("/health and /metrics")) {
		t.Fatalf("read %d sessions, or an uncommitted row", len(h.Sessions))
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("the writer could not commit after the read: %v", err)
	}
}
