package index

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/racebuild"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
)

// sharedCorpus is the corpus of real histories beside the repository; a
// user's clone has none, and the tests that read it check the
// repository's fixtures only.
const sharedCorpus = "../../../shared"

// rebuildSources copies every history the repository's fixtures and the
// shared corpus hold into dir, each where and under a name its harness
// claims (the corpus flattens paths), and returns their resolved paths.
func rebuildSources(t *testing.T, dir string) []string {
	t.Helper()
	glob := func(patterns ...string) []string {
		var out []string
		for _, p := range patterns {
			m, _ := filepath.Glob(p)
			for _, f := range m {
				if !strings.HasSuffix(f, ".golden.json") && filepath.Base(f) != "README.md" {
					out = append(out, f)
				}
			}
		}
		return out
	}
	var paths []string
	n := 0
	place := func(name string, data []byte) string {
		t.Helper()
		n++
		path := filepath.Join(dir, fmt.Sprint(n), name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	read := func(f string) []byte {
		t.Helper()
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	corpus := func(agent, pattern string) string {
		return filepath.Join(sharedCorpus, "harness", "corpus", agent, pattern)
	}
	for _, f := range glob("../testdata/*.md", "../../testdata/*/"+aider.HistoryFileName, "../../aider/testdata/*.md", filepath.Join(sharedCorpus, "aider", "corpus", "*.md")) {
		paths = append(paths, place(aider.HistoryFileName, read(f)))
	}
	for _, f := range glob("../../harness/claude/testdata/*.jsonl", "../../harness/codex/testdata/*.jsonl", "../../harness/gemini/testdata/*.json*",
		corpus("claude-code", "*.jsonl"), corpus("codex", "*.json*"), corpus("gemini-cli", "*.json*")) {
		paths = append(paths, place(filepath.Base(f), read(f)))
	}
	for _, f := range glob(corpus("opencode", "*.db")) {
		paths = append(paths, place("opencode.db", read(f)))
	}
	schema := read("../../harness/opencode/testdata/schema.sql")
	for _, f := range glob("../../harness/opencode/testdata/*.sql") {
		if filepath.Base(f) == "schema.sql" {
			continue
		}
		path := place("opencode.db", nil)
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		for _, script := range [][]byte{schema, read(f)} {
			if _, err := db.Exec(string(script)); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		db.Close()
		paths = append(paths, path)
	}
	for _, f := range glob("../../harness/opencode/testdata/*.txtar") {
		ar := txtar.Parse(read(f))
		n++
		root := filepath.Join(dir, fmt.Sprint(n))
		for _, file := range ar.Files {
			p := filepath.Join(root, filepath.FromSlash(file.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, file.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		paths = append(paths, filepath.Join(root, "storage"))
	}
	for i, p := range paths {
		resolved, err := userfile.ResolvePath(p)
		if err != nil {
			t.Fatal(err)
		}
		paths[i] = resolved
	}
	return paths
}

// sessionGroups splits the histories into groups in which no two share a
// session ID. Several fixtures are cut from one real session and keep its
// ID; in one store the last history read takes such a session over (as a
// resumed transcript does), so which turns it ends with would depend on
// which history a run read last, not on the rebuild this test checks.
func sessionGroups(t *testing.T, reg harness.Registry, paths []string) [][]string {
	t.Helper()
	var groups [][]string
	var seen []map[string]bool
	for _, path := range paths {
		ids := sessionIDsOf(t, reg, path)
		g := 0
		for ; g < len(groups); g++ {
			if !slices.ContainsFunc(ids, func(id string) bool { return seen[g][id] }) {
				break
			}
		}
		if g == len(groups) {
			groups, seen = append(groups, nil), append(seen, map[string]bool{})
		}
		groups[g] = append(groups[g], path)
		for _, id := range ids {
			seen[g][id] = true
		}
	}
	return groups
}

// sessionIDsOf are the IDs of the sessions a history holds, read as the
// indexer reads it; none when no harness claims it.
func sessionIDsOf(t *testing.T, reg harness.Registry, path string) []string {
	t.Helper()
	head, _ := readHead(path)
	h, err := reg.Detect(path, head)
	if err != nil {
		return nil
	}
	var hist *harness.History
	switch r := h.(type) {
	case harness.WholeReader:
		hist, err = harness.ReadStore(context.Background(), r, path, harness.ParseOptions{Path: path})
	case harness.FileReader:
		var f *os.File
		if f, err = os.Open(path); err != nil {
			break
		}
		defer f.Close()
		dec, _ := r.(harness.Decoder)
		var data []byte
		if data, _, err = harness.ReadAll(path, f, dec, harness.Limits{}); err == nil {
			hist = harness.ParseFile(r, data, harness.ParseOptions{Path: path})
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, sess := range hist.Sessions {
		ids = append(ids, sess.ID)
	}
	return ids
}

// TestEveryOrderOfIndexFullForgetAndUndoGivesOneStore is the property a
// rebuild rests on: whatever order fresh indexes, --full runs, plain runs
// and forget-then-undo come in, the store ends holding what one fresh
// index of the same histories holds: sessions, turns with their records,
// files rows, keyword rows and vectors. A --full once dropped the turn
// before each aider session's first message (files added, commands run),
// and no later run brought it back. It reads every history among the
// repository's fixtures and, when it is beside the repository, every
// corpus deja has a reader for.
func TestEveryOrderOfIndexFullForgetAndUndoGivesOneStore(t *testing.T) {
	if racebuild.Enabled {
		// Forty indexes of every fixture and corpus history take minutes
		// under the race detector; ./test.sh runs this package again
		// without it, and this test there.
		t.Skip("runs without -race (./test.sh's second memory step)")
	}
	if _, err := os.Stat(sharedCorpus); err != nil {
		t.Logf("%s is absent: checking the repository's fixtures only", sharedCorpus)
	}
	dir := t.TempDir()
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	reg := memtest.EveryReader
	groups := sessionGroups(t, reg, rebuildSources(t, filepath.Join(dir, "histories")))
	for g, paths := range groups {
		t.Run(fmt.Sprintf("group%d", g), func(t *testing.T) {
			checkRebuildOrders(t, filepath.Join(dir, fmt.Sprint(g)), reg, emb, paths)
		})
	}
}

// checkRebuildOrders indexes paths into stores under dir in every order
// the rebuild property names, and compares each store with a fresh index.
func checkRebuildOrders(t *testing.T, dir string, reg harness.Registry, emb embed.Embedder, paths []string) {
	ctx := context.Background()
	type step func(t *testing.T, s *store.Store)
	run := func(full bool) step {
		return func(t *testing.T, s *store.Store) {
			t.Helper()
			if _, err := Index(ctx, s, Options{Paths: paths, Harnesses: reg, Embedder: emb, Full: full}); err != nil {
				t.Fatal(err)
			}
		}
	}
	plain, full := run(false), run(true)
	// forgetAndUndo forgets every other session, runs then (when set),
	// and lifts the tombstones again; the next index reads them back.
	forgetAndUndo := func(then step) step {
		return func(t *testing.T, s *store.Store) {
			t.Helper()
			ids, err := store.QueryStrings(ctx, memtest.RawDB(t, s), `SELECT id FROM sessions ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			var some []string
			for i, id := range ids {
				if i%2 == 0 {
					some = append(some, id)
				}
			}
			if err := s.Forget(ctx, some, store.LockOptions{}); err != nil {
				t.Fatal(err)
			}
			if then != nil {
				then(t, s)
			}
			if _, err := s.Unforget(ctx, some, store.LockOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	orders := []struct {
		name  string
		steps []step
	}{
		{"full", []step{full}},
		{"index,full", []step{plain, full}},
		{"index,full,index", []step{plain, full, plain}},
		{"index,full,full", []step{plain, full, full}},
		{"index,forget,undo,index", []step{plain, forgetAndUndo(nil), plain}},
		{"index,forget,undo,full", []step{plain, forgetAndUndo(nil), full}},
		{"index,forget,full,undo,index", []step{plain, forgetAndUndo(full), plain}},
		{"full,forget,index,undo,full,index", []step{full, forgetAndUndo(plain), full, plain}},
	}
	fresh := func(name string) *store.Store {
		s, err := store.Open(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	want := fresh("fresh")
	plain(t, want)
	wantDump := storeDump(t, want, emb)
	var turns, sessions int
	memtest.RawDB(t, want).QueryRow(`SELECT (SELECT count(*) FROM turn_rows), (SELECT count(*) FROM sessions)`).Scan(&turns, &sessions)
	t.Logf("%d histories: %d sessions, %d turns", len(paths), sessions, turns)
	if sessions == 0 || turns == 0 {
		t.Fatal("the histories gave no sessions")
	}
	for i, o := range orders {
		t.Run(o.name, func(t *testing.T) {
			s := fresh(fmt.Sprint(i))
			for _, st := range o.steps {
				st(t, s)
			}
			if got := storeDump(t, s, emb); got != wantDump {
				t.Errorf("the store differs from a fresh index:\n%s", firstDifference(wantDump, got))
			}
		})
	}
}

// firstDifference shows the first lines where two dumps differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	lines := func(l []string, i int) []string { return l[min(i, len(l)):min(i+3, len(l))] }
	for i := range max(len(w), len(g)) {
		if i >= len(w) || i >= len(g) || w[i] != g[i] {
			return fmt.Sprintf("line %d\nwant %q\n got %q", i+1, lines(w, i), lines(g, i))
		}
	}
	return ""
}

// TestIndexFullKeepsTheFilesAddedBeforeTheFirstMessage: what aider records
// before a session's first message (a file added, a command run) is turn
// -1; a --full over an indexed store dropped it, and the plain runs after
// did not read the unchanged file again.
func TestIndexFullKeepsTheFilesAddedBeforeTheFirstMessage(t *testing.T) {
	s, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(t.TempDir(), aider.HistoryFileName)
	history := "# aider chat started at 2026-07-19 08:15:00\n\n> Added internal/db/query.go to the chat.  \n\n#### fix the tenant filter  \n\nDone.\n"
	if err := os.WriteFile(path, []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err = userfile.ResolvePath(path)
	if err != nil {
		t.Fatal(err)
	}
	emb := memtest.NewWordsEmbedder()
	for _, full := range []bool{false, true, false} {
		if _, err := Index(context.Background(), s, Options{Paths: []string{path}, Embedder: emb, Full: full}); err != nil {
			t.Fatal(err)
		}
		turns, err := store.QueryStrings(context.Background(), memtest.RawDB(t, s), `SELECT turn || ' ' || files FROM turns ORDER BY turn`)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"-1 internal/db/query.go", "0 "}; !slices.Equal(turns, want) {
			t.Fatalf("after an index (full: %v) the turns are %q, want %q", full, turns, want)
		}
	}
}
