package opencode

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// TestReadLiveStore reads a store while OpenCode holds it open in WAL mode
// with rows not yet checkpointed: the rows are read from the -wal, and
// OpenCode can write during and after the read.
func TestReadLiveStore(t *testing.T) {
	path := loadSQL(t, "testdata/subagent_child_session.sql")
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=wal_autocheckpoint(0)&_pragma=busy_timeout(100)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	exec := func(q string) {
		t.Helper()
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("OpenCode's write failed: %v", err)
		}
	}
	exec(`INSERT INTO session VALUES ('ses_W1', 'global', NULL, 'w', '/home/dev/w', 'Live', '1.2.25', NULL, 1800000000000, 1800000000000, NULL, NULL)`)
	exec(`INSERT INTO message VALUES ('msg_W1u', 'ses_W1', 1800000000001, 1800000000001, '{"role":"user"}')`)
	exec(`INSERT INTO part VALUES ('prt_W1u1', 'msg_W1u', 'ses_W1', 1800000000001, 1800000000001, '{"type":"text","text":"written while deja reads"}')`)
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the writes are not in a -wal file (%v); the test would prove nothing", err)
	}

	// Hold a read transaction open, as a long read would, and write
	// beside it: a WAL reader must not block OpenCode.
	r, err := sql.Open("sqlite", harness.StoreDSN(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tx, err := r.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM session`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	exec(`UPDATE session SET title = 'Live, renamed' WHERE id = 'ses_W1'`)
	tx.Rollback()

	h, err := ReadStore(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Warnings) != 0 {
		t.Errorf("warnings %q", h.Warnings)
	}
	var live bool
	for _, s := range h.Sessions {
		if s.ID == "opencode-ses_W1" && len(s.Messages) == 1 && s.Messages[0].Text == "written while deja reads" {
			live = true
		}
	}
	if !live {
		t.Errorf("the session only in the -wal was not read: %d sessions", len(h.Sessions))
	}
	exec(`INSERT INTO message VALUES ('msg_W1a', 'ses_W1', 1800000000002, 1800000000002, '{"role":"assistant"}')`)
}

// TestReadStoreMissing: a store that is not there is an error, and the
// read-only open does not create it.
func TestReadStoreMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	if _, err := ReadStore(context.Background(), path, nil); err == nil {
		t.Error("no error for a missing store")
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading created %s: %v", path, err)
	}
}

// TestMarker: a session's marker changes when a part is added to it and
// stays when another session changes.
func TestMarker(t *testing.T) {
	path := loadSQL(t, "testdata/subagent_child_session.sql")
	markers := func() map[string]string {
		h, err := ReadStore(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, s := range h.Sessions {
			m[s.ID] = s.Marker
		}
		return m
	}
	before := markers()
	w, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(`INSERT INTO part VALUES ('prt_C2a3', 'msg_C2a', 'ses_C2', 1774893435950, 1774893435950, '{"type":"text","text":"One more."}')`); err != nil {
		t.Fatal(err)
	}
	after := markers()
	if before["opencode-ses_C2"] == after["opencode-ses_C2"] {
		t.Errorf("marker of the changed session stayed %q", after["opencode-ses_C2"])
	}
	if before["opencode-ses_C1"] != after["opencode-ses_C1"] {
		t.Errorf("marker of an unchanged session moved: %q → %q", before["opencode-ses_C1"], after["opencode-ses_C1"])
	}
}
