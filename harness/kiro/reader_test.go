package kiro

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const (
	convID   = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	schemaV2 = `CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL, value TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (key, conversation_id));`
)

// conversationJSON is a ConversationState of one prompt and its answer.
func conversationJSON(id, prompt string) string {
	return `{"conversation_id": "` + id + `", "history": [{"user": {"content": {"Prompt": {"prompt": "` + prompt + `"}}, "timestamp": "2026-06-03T05:00:00Z"}, "assistant": {"Response": {"content": "an answer"}}}]}`
}

func TestSniff(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, sessionsDir, wsName)
	for _, c := range []struct {
		path, head string
		ok         bool
	}{
		{filepath.Join(dir, "kiro-cli", storeName), "SQLite format 3\x00…", true},
		{filepath.Join(dir, "kiro-cli", "other.sqlite3"), "SQLite format 3\x00…", false},
		{filepath.Join(dir, "kiro-cli", storeName), "{}", false},
		{filepath.Join(ws, chatName), " \n{\"sessionId\"", true},
		{filepath.Join(ws, indexName), "[]", false},
		{filepath.Join(ws, chatName), "[]", false},
		{filepath.Join(dir, "elsewhere", wsName, chatName), "{}", false},
		{filepath.Join(dir, "sessions", "cli", convID+".jsonl"), `{"version":"v1","kind":"Prompt"`, true},
		{filepath.Join(dir, "sessions", "cli", convID+".jsonl"), "", true},
		{filepath.Join(dir, "sessions", "cli", convID+".jsonl"), "[", false},
		{filepath.Join(dir, "sessions", "cli", "notes.jsonl"), "{}", false},
		{filepath.Join(dir, "sessions", "elsewhere", convID+".jsonl"), "{}", false},
		{filepath.Join(dir, "sessions", "ws", "sess_1", messagesName), `{"id": "e1"`, true},
		{filepath.Join(dir, "sessions", "ws", "sess_1", "other.jsonl"), "{}", false},
		{filepath.Join(dir, "elsewhere", "ws", "sess_1", messagesName), "{}", false},
	} {
		if err := (Reader{}).Sniff(c.path, []byte(c.head)); (err == nil) != c.ok {
			t.Errorf("Sniff(%s, %q) = %v, want ok %v", c.path, c.head, err, c.ok)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, ok := range map[string]bool{
		"kiro-" + convID:                  true,
		"kiro-q-" + convID:                true,
		"kiro-ide-" + convID:              true,
		"kiro-ide-session_1":              true,
		"kiro-not-a-uuid":                 false,
		"kiro-q-x":                        false,
		"kiro-ide-a b":                    false,
		"kiro-ide-":                       false,
		"kiro-ws-" + convID:               true,
		"kiro-ws-a/b":                     false,
		"cursor-" + convID:                false,
		"kiro-" + convID + "\n":           false,
		"kiro-" + strings.ToUpper(convID): true,
	} {
		if got := (Reader{}).ValidID(id); got != ok {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, ok)
		}
	}
}

func TestResume(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"kiro-" + convID, "/home/u/api", "cd /home/u/api && kiro-cli chat --resume-id " + convID},
		{"kiro-" + convID, "/home/u/my api", "cd '/home/u/my api' && kiro-cli chat --resume-id " + convID},
		{"kiro-" + convID, "", "kiro-cli chat --resume-id " + convID},
		{"kiro-q-" + convID, "/home/u/q", "cd /home/u/q && q chat --resume"},
		{"kiro-q-" + convID, "", ""},
		{"kiro-ide-" + convID, "/home/u/shop", ""},
		{"kiro-ws-" + convID, "/home/u/shop", ""},
		{"kiro-x; rm -rf /", "/p", ""},
	})
	if r := (Reader{}).ResumeRefusal("kiro-ide-"+convID, ""); !strings.Contains(r, "Kiro IDE") {
		t.Errorf("IDE refusal %q", r)
	}
	if r := (Reader{}).ResumeRefusal("kiro-ws-"+convID, ""); !strings.Contains(r, "~/.kiro/sessions/<workspace>") {
		t.Errorf("v3 refusal %q", r)
	}
	if r := (Reader{}).ResumeRefusal("kiro-q-"+convID, ""); !strings.Contains(r, "q chat --resume") {
		t.Errorf("Amazon Q refusal %q", r)
	}
}

// TestIncremental: a store read again with every session known by its
// marker comes back with IDs and markers alone; a conversation the CLI
// saved again (its updated_at moved) is read whole, the others not.
func TestIncremental(t *testing.T) {
	db := filepath.Join(t.TempDir(), "kiro-cli", storeName)
	other := "a1b2c3d4-0000-4000-8000-000000000001"
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	harnesstest.SQLiteStore(t, db, schemaV2,
		`INSERT INTO conversations_v2 VALUES ('/p', '`+convID+`', '`+conversationJSON(convID, "first")+`', 1, 10)`,
		`INSERT INTO conversations_v2 VALUES ('/q', '`+other+`', '`+conversationJSON(other, "other")+`', 2, 20)`)
	ctx := context.Background()
	h, err := harness.ReadStore(ctx, Reader{}, db, harness.ParseOptions{})
	if err != nil || len(h.Sessions) != 2 {
		t.Fatalf("%v, %+v", err, h)
	}
	known := map[string]string{}
	for _, s := range h.Sessions {
		known[s.ID] = s.Marker
	}
	unchanged := func(id, marker string) bool { return known[id] == marker }
	h, err = harness.ReadStore(ctx, Reader{}, db, harness.ParseOptions{Unchanged: unchanged})
	if err != nil || len(h.Sessions) != 2 || len(h.Sessions[0].Messages)+len(h.Sessions[1].Messages) != 0 {
		t.Fatalf("unchanged store read again: %v, %+v", err, h)
	}
	harnesstest.SQLiteStore(t, db, `UPDATE conversations_v2 SET value = '`+
		strings.Replace(conversationJSON(convID, "first"), `"history": [`, `"history": [{"user": {"content": {"Prompt": {"prompt": "second"}}}, "assistant": {"Response": {"content": "ok"}}}, `, 1)+
		`', updated_at = 11 WHERE conversation_id = '`+convID+`'`)
	h, err = harness.ReadStore(ctx, Reader{}, db, harness.ParseOptions{Unchanged: unchanged})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Sessions) != 2 || h.Sessions[0].Marker != "11" || len(h.Sessions[1].Messages) != 0 {
		t.Fatalf("sessions %+v", h.Sessions)
	}
	h.Sessions = h.Sessions[:1]
	harnesstest.CheckTexts(t, h, []string{"second", "ok", "first", "an answer"})
}

// TestIncrementalIDE: an IDE chat known with its marker is not read; one
// rewritten is.
func TestIncrementalIDE(t *testing.T) {
	p := harnesstest.WriteFile(t, filepath.Join(t.TempDir(), sessionsDir, wsName, chatName),
		`{"sessionId": "0b7c1a52-9f3e-4d61-a2b8-5c4d3e2f1a09", "history": [{"message": {"role": "user", "content": "hello"}}]}`)
	h, err := harness.ReadStore(context.Background(), Reader{}, p, harness.ParseOptions{})
	if err != nil || len(h.Sessions) != 1 || h.Sessions[0].Project != "/home/u/shop" {
		t.Fatalf("%v, %+v", err, h)
	}
	s := h.Sessions[0]
	unchanged := func(id, marker string) bool { return id == s.ID && marker == s.Marker }
	h, _ = harness.ReadStore(context.Background(), Reader{}, p, harness.ParseOptions{Unchanged: unchanged})
	if len(h.Sessions) != 1 || len(h.Sessions[0].Messages) != 0 {
		t.Errorf("unchanged chat read again: %+v", h.Sessions)
	}
	harnesstest.WriteFile(t, p, `{"sessionId": "0b7c1a52-9f3e-4d61-a2b8-5c4d3e2f1a09", "history": [{"message": {"role": "user", "content": "hello"}}, {"message": {"role": "user", "content": "again"}}]}`)
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, future, future); err != nil {
		t.Fatal(err)
	}
	h, _ = harness.ReadStore(context.Background(), Reader{}, p, harness.ParseOptions{Unchanged: unchanged})
	harnesstest.CheckTexts(t, h, []string{"hello", "again"})
}

// TestNotPlain: a store whose conversations_v2 is a view (a recursive one
// yields rows without end) is refused, not read.
func TestNotPlain(t *testing.T) {
	db := filepath.Join(t.TempDir(), storeName)
	harnesstest.SQLiteStore(t, db, `CREATE VIEW conversations_v2 AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT '/p' AS key, 'x' AS conversation_id, '{}' AS value, i AS created_at, i AS updated_at FROM n`)
	_, err := harness.ReadStore(context.Background(), Reader{}, db, harness.ParseOptions{})
	if err == nil || !strings.Contains(err.Error(), "not a table") {
		t.Errorf("err %v", err)
	}
}

// TestNoTables: a store with neither table (one the CLI has not yet
// written a conversation to) reads as empty.
func TestNoTables(t *testing.T) {
	db := filepath.Join(t.TempDir(), storeName)
	harnesstest.SQLiteStore(t, db, `CREATE TABLE state (key TEXT PRIMARY KEY, value BLOB)`)
	h, err := harness.ReadStore(context.Background(), Reader{}, db, harness.ParseOptions{})
	if err != nil || len(h.Sessions) != 0 || len(h.Warnings) != 0 {
		t.Errorf("%v, %+v", err, h)
	}
}

// TestIncrementalAmazonQ: an Amazon Q CLI conversation (the older table,
// one per folder) is read again only when its value grew, as each saved
// turn grows it.
func TestIncrementalAmazonQ(t *testing.T) {
	db := filepath.Join(t.TempDir(), storeName)
	harnesstest.SQLiteStore(t, db, `CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT)`,
		`INSERT INTO conversations VALUES ('/q', '`+conversationJSON(convID, "first")+`')`,
		`INSERT INTO conversations VALUES ('/bad', 'not json')`)
	ctx := context.Background()
	h, err := harness.ReadStore(ctx, Reader{}, db, harness.ParseOptions{})
	if err != nil || len(h.Sessions) != 1 || h.Sessions[0].ID != "kiro-q-"+convID || len(h.Warnings) > 0 {
		t.Fatalf("%v, %+v", err, h)
	}
	s := h.Sessions[0]
	unchanged := func(id, marker string) bool { return id == s.ID && marker == s.Marker }
	h, _ = harness.ReadStore(ctx, Reader{}, db, harness.ParseOptions{Unchanged: unchanged})
	if len(h.Sessions) != 1 || len(h.Sessions[0].Messages) != 0 {
		t.Errorf("unchanged conversation read again: %+v", h.Sessions)
	}
	harnesstest.SQLiteStore(t, db, `UPDATE conversations SET value = '`+conversationJSON(convID, "first, and more")+`'`)
	h, _ = harness.ReadStore(ctx, Reader{}, db, harness.ParseOptions{Unchanged: unchanged})
	harnesstest.CheckTexts(t, h, []string{"first, and more", "an answer"})
}

// TestOneRowEach: a conversation two rows hold (two folders) is one
// session, read from the row saved last.
func TestOneRowEach(t *testing.T) {
	db := filepath.Join(t.TempDir(), storeName)
	harnesstest.SQLiteStore(t, db, schemaV2,
		`INSERT INTO conversations_v2 VALUES ('/a', '`+convID+`', '`+conversationJSON(convID, "older")+`', 1, 10)`,
		`INSERT INTO conversations_v2 VALUES ('/b', '`+convID+`', '`+conversationJSON(convID, "newer")+`', 1, 20)`)
	h, err := harness.ReadStore(context.Background(), Reader{}, db, harness.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	harnesstest.CheckTexts(t, h, []string{"newer", "an answer"})
	if h.Sessions[0].Project != "/b" || h.Sessions[0].Marker != "20" {
		t.Errorf("session %+v", h.Sessions[0])
	}
}
