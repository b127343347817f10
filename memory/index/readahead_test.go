package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
)

// storeDump is a store's sessions, turns, files rows and vectors, by
// session and turn (row IDs differ between stores), after checking that
// its keyword index holds exactly its turns' words.
func storeDump(t *testing.T, s *store.Store, emb embed.Embedder) string {
	t.Helper()
	keywordRowsMatchTurns(t, s, "dump")
	var b strings.Builder
	b.WriteString(ledgerDump(t, s))
	rows, err := memtest.RawDB(t, s).Query(`SELECT t.session_id, t.turn, t.user, t.assistant, t.files, t.commands, t.chars FROM turns t ORDER BY t.session_id, t.turn`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, user, assistant, files, commands string
		var turn, chars int
		if err := rows.Scan(&id, &turn, &user, &assistant, &files, &commands, &chars); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n%s/%d %q %q %q %q %d", id, turn, user, assistant, files, commands, chars)
	}
	rows.Close()
	names := map[int64]string{}
	rows, err = memtest.RawDB(t, s).Query(`SELECT id, session_id || '/' || turn FROM turns`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		names[id] = name
	}
	rows.Close()
	set, err := recall.ReadVectors(context.Background(), s, emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	var vecs []string
	for i, k := range set.Keys {
		vecs = append(vecs, fmt.Sprintf("%s.%d %s %v", names[k.TurnID], k.Part, set.Session(i).Id, set.Vector(i)[:4]))
	}
	slices.Sort(vecs)
	b.WriteString("\n" + strings.Join(vecs, "\n"))
	return b.String()
}

// TestReadAheadWritesWhatOneHistoryAtATimeWrites: an index run reads
// histories ahead of its writer, from the store as it was before the
// histories ahead of them were written. One run over several histories
// must write what a run per history writes, also where one history's
// commit changes what the next one's reading saw: a session moving from
// one transcript into another, and a path named twice.
func TestReadAheadWritesWhatOneHistoryAtATimeWrites(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../testdata/history.md")
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string, b []byte) string {
		t.Helper()
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		path, err := userfile.ResolvePath(path)
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	shop := write("shop/"+aider.HistoryFileName, data)
	many := memtest.ManyTurns(t, filepath.Join(dir, "m"), 300)
	first := transcript(t, mkdir(t, filepath.Join(dir, "first")))
	// The same session in a second transcript, grown by a turn: written
	// after the first, it takes the session over.
	grown, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	grown = append(grown, memtest.ClaudeLine(5, "user", `"and the rounding of taxes"`, "")+memtest.ClaudeLine(6, "assistant", `[{"type":"text","text":"Taxes round half up now."}]`, "")...)
	second := write("second/"+memtest.TranscriptID+".jsonl", grown)

	emb := memtest.NewWordsEmbedder()
	reg := harness.Registry{claude.Reader{}, aider.Reader{}}
	run := func(s *store.Store, paths ...string) Report {
		t.Helper()
		rep, err := Index(context.Background(), s, Options{Paths: paths, Harnesses: reg, Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	// ahead runs with the writer held back until the stage has opened
	// the histories it reads, toRead of them: each is read before any is
	// written.
	ahead := func(s *store.Store, toRead int, paths ...string) Report {
		t.Helper()
		opened := make(chan string, len(paths))
		waited := false
		rep, err := Index(context.Background(), s, Options{Paths: paths, Harnesses: reg, Embedder: emb,
			open: func(name string) (*os.File, error) {
				opened <- name
				return os.Open(name)
			},
			beforeWrite: func(string) {
				deadline := time.Now().Add(10 * time.Second)
				for ; !waited && len(opened) < toRead; time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("the stage opened %d histories, not %d, before the first was written", len(opened), toRead)
					}
				}
				waited = true
			}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	open := func(name string) *store.Store {
		s, err := store.Open(context.Background(), filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}

	// The second transcript is known when a run reads the first, which
	// takes its session, ahead of it: its reading is stale.
	one, each := open("data-one"), open("data-each")
	for _, s := range []*store.Store{one, each} {
		run(s, second)
	}
	memtest.AppendFile(t, shop, memtest.ThirdSession)
	paths := []string{first, shop, many, second, shop}
	// second is unchanged since the runs above and not opened; shop is
	// opened twice, the second time before the first is written.
	rep := ahead(one, 4, paths...)
	for _, p := range paths {
		run(each, p)
	}
	if rep.rereads == 0 {
		t.Fatal("no history was read again: the test does not reach the case it is for")
	}
	if got, want := storeDump(t, one, emb), storeDump(t, each, emb); got != want {
		t.Fatalf("one run over the histories wrote\n%s\n\na run per history\n%s", got, want)
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReadAheadEndsWithTheRun: a run that ends early (cancelled, or out of
// disk) leaves no goroutine reading ahead and no history open (checked
// where /proc/self/fd lists a process's files).
func TestReadAheadEndsWithTheRun(t *testing.T) {
	s, path := memtest.Fixture(t)
	dir := t.TempDir()
	var paths []string
	for i := range 6 {
		paths = append(paths, memtest.ManyTurns(t, filepath.Join(dir, fmt.Sprint(i)), 200))
	}
	paths = append(paths, path)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	emb := cancellingEmbedder{memtest.NewWordsEmbedder(), cancel}
	if _, err := Index(ctx, s, Options{Paths: paths, Embedder: emb}); err == nil {
		t.Fatal("a cancelled run reported no error")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after the run, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
	// No history is left open.
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, fd := range fds {
			target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
			if err == nil && strings.HasPrefix(target, dir) {
				t.Errorf("%s is still open after the run", target)
			}
		}
	}
	// The store is whole and takes the next run.
	mustIndex(t, s, memtest.NewWordsEmbedder(), paths...)
}

// TestCancelledIndexReportsIt: a run cancelled while its writer waits for
// the reading stage ends with the cancellation, not as if every history
// had been read, also with no embedder (nothing after the histories to
// notice it).
func TestCancelledIndexReportsIt(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 4 {
		paths = append(paths, memtest.ManyTurns(t, filepath.Join(dir, fmt.Sprint(i)), 5))
	}
	for range 10 {
		s, _ := memtest.Fixture(t)
		ctx, cancel := context.WithCancel(context.Background())
		second := make(chan struct{})
		opened := 0
		_, err := Index(ctx, s, Options{Paths: paths,
			beforeWrite: func(path string) {
				if path == paths[1] {
					close(second)
				}
			},
			open: func(name string) (*os.File, error) {
				if opened++; opened == 3 {
					// The writer has the second history, and soon
					// nothing: then the run is cancelled.
					<-second
					time.Sleep(50 * time.Millisecond)
					cancel()
				}
				return os.Open(name)
			}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a cancelled run returned %v", err)
		}
	}
}
