package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The reliability tests run Index in child processes (this test binary,
// re-executed), so that locks, kills and concurrent writers are real.

const childEnv = "DEJA_TEST_INDEX_CHILD"

// TestIndexChild is the child: it indexes the files named in the
// environment into the store named there. It does nothing in a normal run.
func TestIndexChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("runs only as a child of the reliability tests")
	}
	parts := strings.Split(spec, "\n")
	s, err := Open(context.Background(), parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_, err = s.Index(context.Background(), IndexOptions{
		Paths:    parts[1:],
		Embedder: newWordsEmbedder(),
		Lock:     LockOptions{Wait: time.Minute, Waiting: func(pid int) { fmt.Fprintf(os.Stderr, "waiting for %d\n", pid) }},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	s.Close()
	os.Exit(0)
}

func indexChild(dir string, paths ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestIndexChild$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir+"\n"+strings.Join(paths, "\n"))
	return cmd
}

// bigHistory writes a history of n sessions of three turns each.
func bigHistory(t *testing.T, path string, from, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := from; i < from+n; i++ {
		fmt.Fprintf(f, "\n# aider chat started at %s\n\n", time.Date(2025, 1, 1, 0, 0, 0, 0, time.Local).Add(time.Duration(i)*time.Hour).Format("2006-01-02 15:04:05"))
		for j := 0; j < 3; j++ {
			fmt.Fprintf(f, "#### session %d question %d about the tenant query and the docker image  \n\n", i, j)
			fmt.Fprintf(f, "%s\n\n> Applied edit to pkg/file%d.go  \n\n", strings.Repeat(fmt.Sprintf("answer %d %d explains the change in detail. ", i, j), 20), i)
		}
	}
}

// storeCounts summarises a store for comparison, and checks its integrity.
func storeCounts(t *testing.T, dir string) string {
	t.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ok string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %s %v", ok, err)
	}
	if _, err := s.db.Exec(`INSERT INTO turns_fts(turns_fts) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("keyword index integrity: %v", err)
	}
	var sessions, turns, vectors, hits int
	s.db.QueryRow(`SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM turns), (SELECT count(*) FROM vectors)`).Scan(&sessions, &turns, &vectors)
	s.db.QueryRow(`SELECT count(*) FROM turns_fts WHERE turns_fts MATCH 'tenant'`).Scan(&hits)
	return fmt.Sprintf("%d sessions, %d turns, %d vectors, %d keyword hits", sessions, turns, vectors, hits)
}

func TestIndexKilledAnywhereLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes")
	}
	dir := t.TempDir()
	hist := filepath.Join(dir, "p", ".aider.chat.history.md")
	os.MkdirAll(filepath.Dir(hist), 0o755)
	sessions := 600
	if raceEnabled {
		sessions = 100
	}
	bigHistory(t, hist, 0, sessions)

	clean := filepath.Join(dir, "clean")
	if out, err := indexChild(clean, hist).CombinedOutput(); err != nil {
		t.Fatalf("clean index: %v\n%s", err, out)
	}
	want := storeCounts(t, clean)

	killed := filepath.Join(dir, "killed")
	landed := 0
	for i, delay := range []time.Duration{30 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond, 800 * time.Millisecond} {
		cmd := indexChild(killed, hist)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			landed++
		}
		if i == 1 {
			// The file grows between a kill and the next run.
			bigHistory(t, hist, sessions, 5)
			os.RemoveAll(clean)
			if out, err := indexChild(clean, hist).CombinedOutput(); err != nil {
				t.Fatalf("clean index: %v\n%s", err, out)
			}
			want = storeCounts(t, clean)
		}
	}
	if landed == 0 {
		t.Fatal("every run finished before its kill: make the history bigger")
	}
	t.Logf("%d of 4 kills landed mid-run", landed)
	if out, err := indexChild(killed, hist).CombinedOutput(); err != nil {
		t.Fatalf("index after kills: %v\n%s", err, out)
	}
	if got := storeCounts(t, killed); got != want {
		t.Errorf("after SIGKILLs and a re-run: %s; a clean index has %s", got, want)
	}
}

func TestConcurrentIndexRunsOneWriterAtATime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	dir := t.TempDir()
	hist := filepath.Join(dir, "p", ".aider.chat.history.md")
	os.MkdirAll(filepath.Dir(hist), 0o755)
	sessions := 60
	if raceEnabled {
		sessions = 15
	}
	bigHistory(t, hist, 0, sessions)
	store := filepath.Join(dir, "store")
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := indexChild(store, hist).CombinedOutput()
			outs[i], errs[i] = string(b), err
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("run %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	clean := filepath.Join(dir, "clean")
	if out, err := indexChild(clean, hist).CombinedOutput(); err != nil {
		t.Fatalf("clean: %v\n%s", err, out)
	}
	if got, want := storeCounts(t, store), storeCounts(t, clean); got != want {
		t.Errorf("two concurrent runs left %s; one run leaves %s", got, want)
	}
}

func TestSecondWriterSaysWhoHoldsTheLock(t *testing.T) {
	dir := t.TempDir()
	l, err := AcquireLock(context.Background(), dir, LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	// Another open file description conflicts, as another process would.
	_, err = AcquireLock(context.Background(), dir, LockOptions{Wait: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("err = %v, want it locked by pid %d", err, os.Getpid())
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "retry with a longer --wait") {
		t.Errorf("err = %v, want ErrLocked saying to retry with a longer --wait", err)
	}
}

func TestLockMakesAPrivateDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	l, err := AcquireLock(context.Background(), dir, LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("data directory made with mode %v; want it private (0700), as Open makes it", perm)
	}
}

func TestHistoryChangingWhileIndexed(t *testing.T) {
	s, _ := fixture(t)
	dir := t.TempDir()
	hist := filepath.Join(dir, ".aider.chat.history.md")
	bigHistory(t, hist, 0, 20)
	emb := newWordsEmbedder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 20; i < 60; i++ {
			f, _ := os.OpenFile(hist, os.O_APPEND|os.O_WRONLY, 0)
			// Write a session in pieces, as aider appends line by line.
			fmt.Fprintf(f, "\n# aider chat started at %s\n\n#### session %d question", time.Date(2025, 1, 1, 0, 0, 0, 0, time.Local).Add(time.Duration(i)*time.Hour).Format("2006-01-02 15:04:05"), i)
			f.Close()
			time.Sleep(time.Millisecond)
			f, _ = os.OpenFile(hist, os.O_APPEND|os.O_WRONLY, 0)
			fmt.Fprintf(f, " about the tenant query  \n\nanswer %d\n\n", i)
			f.Close()
		}
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		if _, err := s.Index(context.Background(), IndexOptions{Paths: []string{hist}, Embedder: emb}); err != nil {
			t.Fatal(err)
		}
	}
	index(t, s, emb, hist)

	other, err := Open(context.Background(), filepath.Join(dir, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	index(t, other, emb, hist)
	if got, want := storeCounts(t, s.dir), storeCounts(t, other.dir); got != want {
		t.Errorf("indexed while written: %s; indexed once at the end: %s", got, want)
	}
}
