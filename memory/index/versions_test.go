package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
)

// flipVersions writes each version of a history to one path in turn,
// indexing after each, and checks after every run that the store holds
// each session once: no more sessions than distinct sessions the versions
// hold, and no turn stored twice (the same turn came back three times in
// recall after a history alternated between two versions).
func flipVersions(t *testing.T, opts Options, distinct int, versions []string, order []int) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	path := opts.Paths[0]
	for i, v := range order {
		if err := os.WriteFile(path, []byte(versions[v]), 0o644); err != nil {
			t.Fatal(err)
		}
		// A checkout can keep the size; a distinct time makes the run look.
		at := time.Date(2026, 7, 20, 0, 0, i, 0, time.UTC)
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
		if _, err := Index(context.Background(), s, opts); err != nil {
			t.Fatal(err)
		}
		var sessions, turns, hashes int
		memtest.RawDB(t, s).QueryRow(`SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM turn_rows), (SELECT count(DISTINCT hash) FROM turn_rows)`).Scan(&sessions, &turns, &hashes)
		if sessions > distinct || turns != hashes {
			ids, _ := store.QueryStrings(context.Background(), memtest.RawDB(t, s), `SELECT id || ' present ' || present FROM sessions ORDER BY id`)
			t.Fatalf("after version %d (run %d): %d sessions (the versions hold %d), %d turns of which %d distinct:\n%s",
				v, i+1, sessions, distinct, turns, hashes, strings.Join(ids, "\n"))
		}
	}
	return s
}

// aiderSession is an aider session started at the given hour with one turn.
func aiderSession(hour int, question string) string {
	return fmt.Sprintf("# aider chat started at 2026-07-19 %02d:00:00\n\n#### %s  \n\nDone: %s.\n\n", hour, question, question)
}

// TestIndexHistorySwitchingBranchesStoresEachSessionOnce: a git-tracked
// aider history across branch switches changes back to versions the
// store has read. A session that left the file and returns takes its ID
// back; one that returns under a header another session took keeps the
// ID it was given, and neither is stored again on each switch.
func TestIndexHistorySwitchingBranchesStoresEachSessionOnce(t *testing.T) {
	first := aiderSession(8, "fix the tenant filter in query.go")
	versions := []string{
		first + aiderSession(9, "add rate limiting on main"),
		first + aiderSession(10, "rewrite the parser on the feature branch"),
		// The same header time as main's second session, other turns: a
		// rewritten file, or a launch in the same second on another branch.
		first + aiderSession(9, "something else entirely on the other branch"),
	}
	for _, window := range []int{0, 1} {
		t.Run(fmt.Sprintf("window %d", window), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), aider.HistoryFileName)
			os.WriteFile(path, nil, 0o644)
			path, err := userfile.ResolvePath(path)
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Paths: []string{path}, Embedder: memtest.NewWordsEmbedder(), window: window}
			s := flipVersions(t, opts, 4, versions, []int{0, 1, 0, 1, 2, 0, 2, 1, 0})
			// The last version is main's: its sessions are the ones present.
			present, err := store.QueryStrings(context.Background(), memtest.RawDB(t, s), `SELECT header FROM sessions WHERE present = 1 ORDER BY offset`)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"# aider chat started at 2026-07-19 08:00:00", "# aider chat started at 2026-07-19 09:00:00"}; !slices.Equal(present, want) {
				t.Errorf("present sessions %q, want %q", present, want)
			}
			got, err := recall.Recall(context.Background(), s, recall.Options{Query: "add rate limiting on main", Embedder: memtest.NewWordsEmbedder(), Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, h := range got.Results {
				if strings.Contains(h.User, "rate limiting") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("recall found the rate limiting turn %d times, want once", n)
			}
		})
	}
}

// TestIndexTranscriptSwitchingVersionsStoresEachSessionOnce is the same
// for a JSONL harness, whose sessions are named by the harness: a Claude
// Code transcript restored to an earlier version and back again keeps one
// session, whose turns are those of the version read last.
func TestIndexTranscriptSwitchingVersionsStoresEachSessionOnce(t *testing.T) {
	base := memtest.ClaudeLine(1, "user", `"fix the rounding"`, "") + memtest.ClaudeLine(2, "assistant", `[{"type":"text","text":"Fixed the rounding."}]`, "")
	versions := []string{
		base + memtest.ClaudeLine(3, "user", `"now the taxes"`, "") + memtest.ClaudeLine(4, "assistant", `[{"type":"text","text":"Taxes round half up."}]`, ""),
		base + memtest.ClaudeLine(3, "user", `"now the invoices instead"`, "") + memtest.ClaudeLine(4, "assistant", `[{"type":"text","text":"Invoices are rounded."}]`, ""),
	}
	path := filepath.Join(t.TempDir(), memtest.TranscriptID+".jsonl")
	os.WriteFile(path, nil, 0o644)
	path, err := userfile.ResolvePath(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Paths: []string{path}, Harnesses: harness.Registry{claude.Reader{}, aider.Reader{}}, Embedder: memtest.NewWordsEmbedder()}
	s := flipVersions(t, opts, 1, versions, []int{0, 1, 0, 1})
	if got := storedTurns(t, s, "claude-"+memtest.TranscriptID); len(got) != 2 || !strings.Contains(got[1], "invoices") {
		t.Errorf("turns %q, want the last version's two", got)
	}
}
