package harness

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A pipe planted where a reader looks beside a history (an index, a
// sidecar, a SQLite store's log) is refused at once, never waited on.
func TestSideFilesRefusePipesWithoutBlocking(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	pipe := filepath.Join(dir, "sessions.json")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	within(t, "OpenSide", func() {
		if f, err := OpenSide(pipe); err == nil || !strings.Contains(err.Error(), "named pipe") {
			f.Close()
			t.Errorf("OpenSide on a FIFO: %v, want a refusal naming the pipe", err)
		}
	})
	within(t, "ReadSide", func() {
		if _, err := ReadSide(pipe, 1<<20); err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("ReadSide on a FIFO: %v, want a refusal naming the pipe", err)
		}
	})
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, 2048), 0o644)
	if _, err := ReadSide(big, 1024); err == nil {
		t.Error("ReadSide read a file over its bound")
	}
	if data, err := ReadSide(big, 2048); err != nil || len(data) != 2048 {
		t.Errorf("ReadSide at its bound: %d bytes, %v", len(data), err)
	}

	// A store whose write-ahead log or shared memory is a pipe is read
	// without waiting on it.
	for _, suffix := range []string{"-wal", "-shm"} {
		store := filepath.Join(dir, "store"+suffix+".db")
		db, err := sql.Open("sqlite", store)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		os.Remove(store + suffix)
		if err := syscall.Mkfifo(store+suffix, 0o644); err != nil {
			t.Fatal(err)
		}
		within(t, "ReadSQLite with a "+suffix+" pipe", func() {
			// SQLite opens its log and shared memory read-write or not
			// at all, which a pipe does not hold up: the store is read.
			var n int
			_, err := ReadSQLite(context.Background(), store, "test", "a test store", nil, func(tx *sql.Tx) (*History, error) {
				return &History{}, tx.QueryRow(`SELECT count(*) FROM t`).Scan(&n)
			})
			if err != nil || n != 1 {
				t.Errorf("ReadSQLite with %s a FIFO: %d rows, %v", suffix, n, err)
			}
		})
	}
}

// within fails the test when f has not returned after five seconds.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s blocked on a pipe", what)
	}
}
