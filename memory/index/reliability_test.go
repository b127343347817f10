package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/internal/racebuild"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// The reliability tests run Index in child processes (this test binary,
// re-executed), so that locks, kills and concurrent writers are real.

const (
	childEnv     = "DEJA_TEST_INDEX_CHILD"
	childFullEnv = "DEJA_TEST_INDEX_CHILD_FULL"
)

// TestIndexChild is the child: it indexes the files named in the
// environment into the store named there. It does nothing in a normal run.
func TestIndexChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("runs only as a child of the reliability tests")
	}
	parts := strings.Split(spec, "\n")
	s, err := store.Open(context.Background(), parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_, err = Index(context.Background(), s, Options{
		Paths:    parts[1:],
		Full:     os.Getenv(childFullEnv) != "",
		Embedder: memtest.NewWordsEmbedder(),
		Lock:     store.LockOptions{Wait: time.Minute, Waiting: func(pid int) { fmt.Fprintf(os.Stderr, "waiting for %d\n", pid) }},
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

// indexFullChild is indexChild with --full.
func indexFullChild(dir string, paths ...string) *exec.Cmd {
	cmd := indexChild(dir, paths...)
	cmd.Env = append(cmd.Env, childFullEnv+"=1")
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
	s, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ok string
	if err := memtest.RawDB(t, s).QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %s %v", ok, err)
	}
	if _, err := memtest.RawDB(t, s).Exec(`INSERT INTO turns_fts(turns_fts) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("keyword index integrity: %v", err)
	}
	var sessions, turns, vectors, hits int
	memtest.RawDB(t, s).QueryRow(`SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM turns), (SELECT count(*) FROM vectors)`).Scan(&sessions, &turns, &vectors)
	memtest.RawDB(t, s).QueryRow(`SELECT count(*) FROM turns_fts WHERE turns_fts MATCH 'tenant'`).Scan(&hits)
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
	if racebuild.Enabled {
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
	if racebuild.Enabled {
		sessions = 15
	}
	bigHistory(t, hist, 0, sessions)
	sto := filepath.Join(dir, "store")
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := indexChild(sto, hist).CombinedOutput()
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
	if got, want := storeCounts(t, sto), storeCounts(t, clean); got != want {
		t.Errorf("two concurrent runs left %s; one run leaves %s", got, want)
	}
}

func TestSecondWriterSaysWhoHoldsTheLock(t *testing.T) {
	dir := t.TempDir()
	l, err := store.AcquireLock(context.Background(), dir, store.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	// Another open file description conflicts, as another process would.
	_, err = store.AcquireLock(context.Background(), dir, store.LockOptions{Wait: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("err = %v, want it locked by pid %d", err, os.Getpid())
	}
	if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "retry with a longer --wait") {
		t.Errorf("err = %v, want ErrLocked saying to retry with a longer --wait", err)
	}
}

func TestLockMakesAPrivateDataDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	l, err := store.AcquireLock(context.Background(), dir, store.LockOptions{})
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
	s, _ := memtest.Fixture(t)
	dir := t.TempDir()
	hist := filepath.Join(dir, ".aider.chat.history.md")
	bigHistory(t, hist, 0, 20)
	emb := memtest.NewWordsEmbedder()
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
		if _, err := Index(context.Background(), s, Options{Paths: []string{hist}, Embedder: emb}); err != nil {
			t.Fatal(err)
		}
	}
	mustIndex(t, s, emb, hist)

	other, err := store.Open(context.Background(), filepath.Join(dir, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	mustIndex(t, other, emb, hist)
	if got, want := storeCounts(t, s.Dir()), storeCounts(t, other.Dir()); got != want {
		t.Errorf("indexed while written: %s; indexed once at the end: %s", got, want)
	}
}

// pendingFull counts the histories a --full has yet to finish.
func pendingFull(t *testing.T, dir string) int {
	t.Helper()
	s, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := memtest.RawDB(t, s).QueryRow(`SELECT count(*) FROM files WHERE full_pending = 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestIndexKilledFullIsFinishedByAPlainIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes")
	}
	// The first --full names every history (as a --full with no path
	// does), the second only "web", which was never indexed before.
	for _, all := range []bool{true, false} {
		t.Run(fmt.Sprintf("every history %v", all), func(t *testing.T) {
			dir := t.TempDir()
			var hists []string
			for _, name := range []string{"api", "shop", "web"} {
				hist := filepath.Join(dir, name, ".aider.chat.history.md")
				os.MkdirAll(filepath.Dir(hist), 0o755)
				sessions := 300
				if racebuild.Enabled {
					sessions = 60
				}
				bigHistory(t, hist, 0, sessions)
				hists = append(hists, hist)
			}
			named := hists
			if !all {
				named = hists[2:]
			}
			sto := filepath.Join(dir, "store")
			if out, err := indexChild(sto, hists[:2]...).CombinedOutput(); err != nil {
				t.Fatalf("first index: %v\n%s", err, out)
			}
			// The run is killed as soon as the store shows a --full under
			// way, however fast this machine indexes; a run that finished
			// before it was seen is tried again.
			landed := false
			for try := 0; try < 5 && !landed; try++ {
				cmd := indexFullChild(sto, named...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				go func() { cmd.Wait(); close(done) }()
				deadline := time.Now().Add(time.Minute)
			watch:
				for {
					select {
					case <-done:
						break watch
					default:
					}
					if pendingFull(t, sto) > 0 {
						cmd.Process.Signal(syscall.SIGKILL)
						<-done
						break
					}
					if time.Now().After(deadline) {
						cmd.Process.Kill()
						<-done
						t.Fatal("the --full child neither finished nor showed a --full under way in a minute")
					}
					time.Sleep(time.Millisecond)
				}
				ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
				landed = ok && ws.Signaled() && pendingFull(t, sto) > 0
			}
			if !landed {
				t.Fatal("in 5 runs no kill landed while a --full had histories left: make the histories bigger")
			}
			// aider goes on writing; then a plain index, which reads the
			// histories the store tracks.
			for _, h := range hists {
				bigHistory(t, h, 1000, 2)
			}
			s, err := store.Open(context.Background(), sto)
			if err != nil {
				t.Fatal(err)
			}
			known, err := s.KnownFiles(context.Background())
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(known, hists) {
				t.Fatalf("after the killed --full the store tracks %v; want every history it knew and every one the --full named", known)
			}
			if out, err := indexChild(sto, known...).CombinedOutput(); err != nil {
				t.Fatalf("plain index: %v\n%s", err, out)
			}
			if n := pendingFull(t, sto); n != 0 {
				t.Errorf("%d histories still marked for --full after a plain index finished", n)
			}
			clean := filepath.Join(dir, "clean")
			if out, err := indexChild(clean, known...).CombinedOutput(); err != nil {
				t.Fatalf("clean index: %v\n%s", err, out)
			}
			if got, want := storeCounts(t, sto), storeCounts(t, clean); got != want {
				t.Errorf("after a killed --full and a plain index: %s; a clean index has %s", got, want)
			}
			s, err = store.Open(context.Background(), sto)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, h := range known {
				var n int
				memtest.RawDB(t, s).QueryRow(`SELECT count(*) FROM sessions WHERE path = ? AND started_ns >= ?`, h,
					time.Date(2025, 1, 1, 0, 0, 0, 0, time.Local).Add(1000*time.Hour).UnixNano()).Scan(&n)
				if n != 2 {
					t.Errorf("%s: %d of the 2 sessions appended after the killed --full are indexed", h, n)
				}
			}
		})
	}
}

func TestRecallDuringAFullIndexAnswersFromTheLastCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	dir := t.TempDir()
	var hists []string
	for _, name := range []string{"api", "shop", "web", "cli"} {
		hist := filepath.Join(dir, name, ".aider.chat.history.md")
		os.MkdirAll(filepath.Dir(hist), 0o755)
		bigHistory(t, hist, 0, 150)
		hists = append(hists, hist)
	}
	sto := filepath.Join(dir, "store")
	if out, err := indexChild(sto, hists...).CombinedOutput(); err != nil {
		t.Fatalf("first index: %v\n%s", err, out)
	}
	emb := memtest.NewWordsEmbedder()
	full := indexFullChild(sto, hists...)
	if err := full.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- full.Wait() }()
	recalls := 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("--full: %v", err)
			}
			running = false
		default:
		}
		// Each recall opens the store, as 'deja recall' does.
		s, err := store.Open(context.Background(), sto)
		if err != nil {
			t.Fatal(err)
		}
		for mode, q := range map[recall.Mode]string{recall.Semantic: "explains the change", recall.Keyword: "tenant query"} {
			r, err := recall.Recall(context.Background(), s, recall.Options{Query: q, Mode: mode, Limit: 5, Embedder: emb})
			if err != nil {
				t.Errorf("%v recall %d during --full: %v", mode, recalls, err)
			} else if len(r.Results) == 0 {
				t.Errorf("%v recall %d during --full found nothing", mode, recalls)
			}
		}
		s.Close()
		recalls++
	}
	if recalls < 3 {
		t.Fatalf("only %d recalls ran while --full did: make the histories bigger", recalls)
	}
	t.Logf("%d recalls during --full", recalls)
}

// mountTmpfs mounts a tmpfs of size bytes at a new directory, or skips the
// test saying why it cannot.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("a full disk is made with a small tmpfs, which needs root on Linux")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs to fill (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fillDisk writes a file in dir until the disk holding it is full.
func fillDisk(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			return
		}
	}
}

func TestIndexOnAFullDiskFailsSayingSo(t *testing.T) {
	disk := mountTmpfs(t, 1<<20)
	src := t.TempDir()
	small := filepath.Join(src, "small", ".aider.chat.history.md")
	big := filepath.Join(src, "big", ".aider.chat.history.md")
	os.MkdirAll(filepath.Dir(small), 0o755)
	os.MkdirAll(filepath.Dir(big), 0o755)
	bigHistory(t, small, 0, 10)
	bigHistory(t, big, 0, 400)

	s, err := store.Open(context.Background(), filepath.Join(disk, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, small)
	// What a store holds is in its database file once checkpointed, as
	// SQLite does every 1,000 pages; on a disk this small the log would
	// otherwise hold it all.
	if _, err := memtest.RawDB(t, s).Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	before := storeCounts(t, s.Dir())
	rep, err := Index(context.Background(), s, Options{Paths: []string{big}, Embedder: emb})
	if !errors.Is(err, store.ErrDiskFull) || !strings.Contains(err.Error(), "disk full: free some space") {
		t.Fatalf("index onto a full disk: err %v, report %+v; want an error saying the disk is full", err, rep)
	}
	if got := storeCounts(t, s.Dir()); got != before {
		t.Errorf("after the failed index the store holds %s; before it, %s", got, before)
	}

	// forget on a full disk says truly whether it forgot: with no space
	// left, and with a little, so that some runs commit and then fail to
	// scrub.
	ids := sessionIDs(t, s)
	outcomes := map[string]int{}
	for i, room := range []int64{0, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10} {
		fillDisk(t, disk)
		filler := filepath.Join(disk, "filler")
		if fi, err := os.Stat(filler); err == nil {
			os.Truncate(filler, max(0, fi.Size()-room))
		}
		id := ids[i]
		err := s.Forget(context.Background(), []string{id}, store.LockOptions{})
		_, serr := digest.Session(context.Background(), s, id)
		switch {
		case err == nil, errors.Is(err, store.ErrNotScrubbed):
			if !errors.Is(serr, store.ErrNoSession) {
				t.Errorf("forget with %d bytes free said it forgot (%v), but the session is still there", room, err)
			}
		default:
			if !strings.Contains(err.Error(), "nothing was forgotten") || serr != nil {
				t.Errorf("forget with %d bytes free failed with %v and the session is %v; a failed forget must say nothing was forgotten, and leave the session", room, err, serr)
			}
		}
		switch {
		case err == nil:
			outcomes["forgot"]++
		case errors.Is(err, store.ErrNotScrubbed):
			outcomes["forgot, not scrubbed"]++
		default:
			outcomes["not forgotten"]++
		}
		os.Remove(filler)
		if err := s.Forget(context.Background(), []string{id}, store.LockOptions{}); err != nil {
			t.Errorf("forget again with space free: %v", err)
		}
		if _, err := digest.Session(context.Background(), s, id); !errors.Is(err, store.ErrNoSession) {
			t.Errorf("after forget with space free the session is there: %v", err)
		}
	}
	t.Logf("forget on a nearly full disk: %v", outcomes)
}

// manyRecordsHistory writes one session whose one turn has n file records.
func manyRecordsHistory(t testing.TB, path string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("\n# aider chat started at 2026-07-19 08:15:00\n\n#### Rename the package everywhere  \n\nRenamed it.\n\n")
	for i := range n {
		fmt.Fprintf(&b, "> Applied edit to pkg/f%d.go  \n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestIndexA40000TurnSession(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 40,000 turns")
	}
	if racebuild.Enabled {
		// The race detector makes this take minutes (past the test
		// timeout on a loaded machine); ./test.sh runs ./memory without
		// it too, and that run holds the promise.
		t.Skip("indexes 40,000 turns: run without -race")
	}
	s, path := memtest.Fixture(t)
	n := 40000
	memtest.LongSessionHistory(t, path, n)
	emb := memtest.NewWordsEmbedder()
	rep := mustIndex(t, s, emb, path)
	if rep.NewTurns != n || rep.Skipped != 0 {
		t.Fatalf("first index of a %d-turn session: %+v", n, rep)
	}
	// aider goes on: the session is re-read with all its turns stored.
	memtest.AppendFile(t, path, "#### one more question about distroless  \n\nSwitched to distroless.\n")
	rep = mustIndex(t, s, emb, path)
	if rep.NewTurns != 1 {
		t.Errorf("re-read of the grown session: %+v; want its one new turn", rep)
	}
	var turns, vectors int
	memtest.RawDB(t, s).QueryRow(`SELECT (SELECT count(*) FROM turns), (SELECT count(*) FROM vectors)`).Scan(&turns, &vectors)
	if turns != n+1 || vectors != n+1 {
		t.Errorf("%d turns, %d vectors stored; want %d of each", turns, vectors, n+1)
	}
	if r := mustRecall(t, s, emb, "distroless", recall.Keyword); len(r.Results) != 1 {
		t.Errorf("the appended turn is not recalled: %+v", r.Results)
	}
}

func TestIndexATurnOf300000Records(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 300,000 records")
	}
	if racebuild.Enabled {
		// The race detector makes this take minutes (past the test
		// timeout on a loaded machine); ./test.sh runs ./memory without
		// it too, and that run holds the promise.
		t.Skip("indexes 300,000 records: run without -race")
	}
	s, path := memtest.Fixture(t)
	n := 300000
	manyRecordsHistory(t, path, n)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	var files string
	if err := memtest.RawDB(t, s).QueryRow(`SELECT files FROM turns`).Scan(&files); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(files, "\n") + 1; got != n {
		t.Errorf("the turn holds %d file records; want %d", got, n)
	}
	if r := mustRecall(t, s, emb, "pkg/f299999.go", recall.Keyword); len(r.Results) != 1 {
		t.Errorf("the last record is not recalled: %+v", r.Results)
	}
}

// cancellingEmbedder embeds as wordsEmbedder does and cancels its run's
// context on the first call, as a deadline would strike mid-run.
type cancellingEmbedder struct {
	*memtest.WordsEmbedder
	cancel context.CancelFunc
}

func (e cancellingEmbedder) Embed(ctx context.Context, kind embed.Kind, texts []string) ([][]float32, error) {
	e.cancel()
	return e.WordsEmbedder.Embed(ctx, kind, texts)
}

func TestIndexOfALongSessionStopsAtItsDeadline(t *testing.T) {
	s, path := memtest.Fixture(t)
	memtest.LongSessionHistory(t, path, 20000)
	ctx, cancel := context.WithCancel(context.Background())
	emb := cancellingEmbedder{memtest.NewWordsEmbedder(), cancel}
	_, err := Index(ctx, s, Options{Paths: []string{path}, Embedder: emb})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("index cancelled mid-session: %v; want context.Canceled", err)
	}
	if emb.Calls > 1 {
		t.Errorf("the embedder was called %d times after the run was cancelled in its first call", emb.Calls-1)
	}
	if n := len(sessionIDs(t, s)); n != 0 {
		t.Errorf("a cancelled run left %d sessions; the file's transaction must roll back whole", n)
	}
}
