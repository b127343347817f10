package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/racebuild"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/check"
	"github.com/deja-dev/deja/memory/store/segment"
	"github.com/deja-dev/deja/userfile"
)

// TestCheckFindsNothingInAHealthyStore: a store indexed, indexed again
// with a second history, with a session forgotten and restored, checks
// out; Check must not cry wolf.
func TestCheckFindsNothingInAHealthyStore(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	ctx := context.Background()
	check := func(step string) {
		t.Helper()
		problems, err := check.Check(ctx, s)
		if err != nil || len(problems) > 0 {
			t.Errorf("%s: Check = %q, %v; want nothing wrong", step, problems, err)
		}
	}
	check("a new store")
	mustIndex(t, s, emb, path)
	check("indexed")
	mustIndex(t, s, emb, path, memtest.SecondHistory(t))
	check("a second history")
	// A turn of no word the embedder knows has a zero vector: a ledger
	// row, and no vector in the segment.
	blank := filepath.Join(t.TempDir(), aider.HistoryFileName)
	os.WriteFile(blank, []byte("# aider chat started at 2026-07-20 10:00:00\n\n#### xyzzy xyzzy\n\nok\n"), 0o644)
	blank, _ = userfile.ResolvePath(blank)
	mustIndex(t, s, emb, blank)
	check("a turn with a zero vector")
	ids := sessionIDs(t, s)
	if err := s.Forget(ctx, ids[:1], store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	check("a session forgotten")
	if _, err := s.Unforget(ctx, ids[:1], store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	check("forgotten and brought back")
}

// TestSchemaUpgradeFrom7AddsUpTheLedger: a store of schema 7 has no
// checksum of its rows; the upgrade adds it up from the rows there, so
// Check finds nothing wrong, and the triggers keep it through the next
// index and a forget.
func TestSchemaUpgradeFrom7AddsUpTheLedger(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	ctx := context.Background()
	mustIndex(t, s, emb, path)
	toSchema7(t, s)
	dir := s.Dir()
	s.Close()
	s, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var kept string
	memtest.RawDB(t, s).QueryRow(`SELECT value FROM meta WHERE key = 'ledger'`).Scan(&kept)
	if kept == "" || kept == "0" {
		t.Errorf("after the upgrade the ledger's checksum is %q", kept)
	}
	mustIndex(t, s, emb, path, memtest.SecondHistory(t))
	if err := s.Forget(ctx, sessionIDs(t, s)[:1], store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	if problems, err := check.Check(ctx, s); err != nil || len(problems) > 0 {
		t.Errorf("Check after the upgrade, an index and a forget = %q, %v", problems, err)
	}
}

// rawDump is every row of every table of the store's database (the
// keyword index's shadow tables included) and every vector of its
// segment: what a flipped byte may change. An error is a dump too: the
// store no longer reads as it did.
func rawDump(ctx context.Context, t testing.TB, s *store.Store, emb *memtest.WordsEmbedder) string {
	var b strings.Builder
	tables, err := store.QueryStrings(ctx, memtest.RawDB(t, s), `SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
	if err != nil {
		return "error: " + err.Error()
	}
	for _, table := range tables {
		rows, err := memtest.RawDB(t, s).QueryContext(ctx, `SELECT * FROM "`+table+`" ORDER BY 1`)
		if err != nil {
			return "error: " + err.Error()
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return "error: " + err.Error()
			}
			fmt.Fprintf(&b, "%s %v\n", table, vals)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return "error: " + err.Error()
		}
	}
	set, err := recall.ReadVectors(ctx, s, emb.Identity())
	if err != nil {
		return "error: " + err.Error()
	}
	for i, k := range set.Keys {
		fmt.Fprintf(&b, "vector %v %v %v\n", k, *set.Session(i), set.Vector(i))
	}
	return b.String()
}

// TestCheckFindsEveryFlippedByte flips 8 bytes at a time in copies of an
// indexed store, at deterministic pseudo-random offsets: 200 anywhere in
// deja.db, 200 where deja.db holds something (a byte that is not zero:
// secure_delete zeroes what is freed, so most of a small store is
// zeros), and 100 anywhere in the vector segment. Every flip that changed
// what the store holds (rawDump) must be found: the store no longer opens
// (with what to do) or Check reports it. The tally is logged.
func TestCheckFindsEveryFlippedByte(t *testing.T) {
	if testing.Short() {
		t.Skip("500 copies of a store")
	}
	if racebuild.Enabled {
		// 500 copies of a store, each checked: 71 s under the race
		// detector on 2 cores, for code the other check tests run under
		// it. ./test.sh runs this package again without it, and this test
		// there.
		t.Skip("runs without -race (./test.sh's second memory step)")
	}
	ctx := context.Background()
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path, memtest.SecondHistory(t))
	dir := s.Dir()
	want := rawDump(ctx, t, s, emb)
	s.Close() // checkpoints the write-ahead log: deja.db is the whole database
	seg, _ := filepath.Glob(filepath.Join(dir, segment.VectorDir, "*.seg"))
	if len(seg) != 1 {
		t.Fatalf("segments %v, want one", seg)
	}
	rng := rand.New(rand.NewPCG(26, 6))
	for _, c := range []struct {
		file  string
		flips int
		held  bool // only where a byte is not zero
	}{
		{store.DBFile, 200, false},
		{store.DBFile, 200, true},
		{filepath.Join(segment.VectorDir, filepath.Base(seg[0])), 100, false},
	} {
		orig, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		tally := map[string]int{}
		for range c.flips {
			off := rng.IntN(len(orig) - 8)
			for c.held && orig[off] == 0 {
				off = rng.IntN(len(orig) - 8)
			}
			damaged := append([]byte(nil), orig...)
			for i := range 8 {
				damaged[off+i] ^= byte(1 + rng.IntN(255))
			}
			copyDir := t.TempDir()
			copyStore(t, dir, copyDir)
			if err := os.WriteFile(filepath.Join(copyDir, c.file), damaged, 0o600); err != nil {
				t.Fatal(err)
			}
			how := flipFound(ctx, t, copyDir, emb, want)
			tally[how]++
			if how == "missed" {
				t.Errorf("8 bytes flipped at %d of %s changed the store and neither opening it nor Check found it", off, c.file)
			}
		}
		t.Logf("%d flips of %s (%d bytes; only where a byte is not zero: %v): %v", c.flips, c.file, len(orig), c.held, tally)
	}
}

// flipFound opens a damaged copy of a store and says how the damage
// showed: "unchanged" when the store holds what it held, "open" when it
// no longer opens, "check" when Check reports it, "missed" otherwise.
func flipFound(ctx context.Context, t *testing.T, dir string, emb *memtest.WordsEmbedder, want string) string {
	s, err := store.Open(ctx, dir)
	if err != nil {
		if !strings.Contains(err.Error(), "deja doctor") && !strings.Contains(err.Error(), store.RebuildCommand) {
			t.Errorf("opening a damaged store: %v, which says nothing of what to do", err)
		}
		return "open"
	}
	defer s.Close()
	problems, err := check.Check(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(problems) > 0:
		return "check"
	case rawDump(ctx, t, s, emb) == want:
		return "unchanged"
	}
	return "missed"
}

// copyStore copies the data directory from to the directory to.
func copyStore(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCheck checks a store of one session of 20,000 turns: Check
// reads the whole store, so its time follows the store's size.
func BenchmarkCheck(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "p", aider.HistoryFileName)
	os.MkdirAll(filepath.Dir(path), 0o755)
	memtest.LongSessionHistory(b, path, 20000)
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(dir, "data"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := Index(ctx, s, Options{Paths: []string{path}, Embedder: memtest.NewWordsEmbedder()}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if problems, err := check.Check(ctx, s); err != nil || len(problems) > 0 {
			b.Fatalf("Check = %q, %v", problems, err)
		}
	}
}

// TestSchemaUpgradeFrom8AddsTheWorkTable: a store of schema 8 has no
// turn_work; opening it adds the table and its checksum triggers, Check
// finds nothing wrong, and 'deja index --full' gives its turns their work.
func TestSchemaUpgradeFrom8AddsTheWorkTable(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	ctx := context.Background()
	// A store of schema 8 holds what deja read before records had
	// outcomes: the same turns, hashed without work.
	if _, err := Index(ctx, s, Options{Paths: []string{path}, Embedder: emb, Harnesses: harness.Registry{noOutcomes{}}}); err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		t.Helper()
		if err := memtest.RawDB(t, s).QueryRow(`SELECT count(*) FROM turn_work`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("read without outcomes, the store holds %d work rows", n)
	}
	s = reopenAfter(t, s, `DELETE FROM turn_work`, `DROP TRIGGER turn_work_ledger_i`, `DROP TRIGGER turn_work_ledger_d`,
		`DROP TRIGGER turn_work_ledger_u`, `DROP TABLE turn_work`, `UPDATE meta SET value = '8' WHERE key = 'schema'`)
	if n := count(); n != 0 {
		t.Fatalf("after the upgrade turn_work holds %d rows", n)
	}
	if problems, err := check.Check(ctx, s); err != nil || len(problems) > 0 {
		t.Fatalf("Check after the upgrade = %q, %v", problems, err)
	}
	if _, err := Index(ctx, s, Options{Paths: []string{path}, Embedder: emb, Full: true}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n == 0 {
		t.Errorf("after --full no turn has its work")
	}
	if problems, err := check.Check(ctx, s); err != nil || len(problems) > 0 {
		t.Errorf("Check after --full = %q, %v", problems, err)
	}
}

// noOutcomes is the aider reader as deja read histories before records
// carried outcomes and spans.
type noOutcomes struct{}

func (noOutcomes) Name() string { return aider.Reader{}.Name() }
func (noOutcomes) Discover(o harness.DiscoverOptions) harness.Discovery {
	return aider.Reader{}.Discover(o)
}
func (noOutcomes) Sniff(path string, head []byte) error { return aider.Reader{}.Sniff(path, head) }
func (noOutcomes) ValidID(id string) bool               { return aider.Reader{}.ValidID(id) }
func (noOutcomes) HistoryInProject()                    {}
func (noOutcomes) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	h := aider.Reader{}.Parse(data, opts)
	for i := range h.Sessions {
		for j := range h.Sessions[i].Records {
			r := &h.Sessions[i].Records[j]
			r.Outcome, r.Span = harness.Outcome{}, harness.Span{}
		}
	}
	return h
}

// TestTurnsStoredBeforeOutcomesContinueTheirSessions: a store indexed
// before records had outcomes (its turns hashed without work) indexed
// again, after a session grew and with --full, keeps each session once:
// a turn that gained its work is the same turn, not a rewritten session.
func TestTurnsStoredBeforeOutcomesContinueTheirSessions(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	ctx := context.Background()
	if _, err := Index(ctx, s, Options{Paths: []string{path}, Embedder: emb, Harnesses: harness.Registry{noOutcomes{}}}); err != nil {
		t.Fatal(err)
	}
	before := sessionIDs(t, s)
	memtest.AppendFile(t, path, "\n#### and one more question about the pool\n\nThe pool holds ten connections.\n")
	mustIndex(t, s, emb, path)
	if got := sessionIDs(t, s); len(got) != len(before) {
		t.Fatalf("sessions %v after the grown history was read with outcomes, were %v", got, before)
	}
	if _, err := Index(ctx, s, Options{Paths: []string{path}, Embedder: emb, Full: true}); err != nil {
		t.Fatal(err)
	}
	if got := sessionIDs(t, s); len(got) != len(before) {
		t.Fatalf("sessions %v after --full, were %v", got, before)
	}
	var work int
	memtest.RawDB(t, s).QueryRow(`SELECT count(*) FROM turn_work`).Scan(&work)
	if work == 0 {
		t.Error("no turn gained its work")
	}
}

// TestUpgradeFromSchema9ChecksOut: the upgrade to schema 10 adds an index
// and nothing else, leaving the ledger's checksum as it was (it is not
// added up again): the upgraded store checks out, and indexing goes on.
func TestUpgradeFromSchema9ChecksOut(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	ctx := context.Background()
	mustIndex(t, s, emb, path)
	s2 := reopenAfter(t, s, `DROP INDEX sessions_prompts`, `UPDATE meta SET value = '9' WHERE key = 'schema'`)
	var n int
	if err := memtest.RawDB(t, s2).QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'sessions_prompts'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("sessions_prompts after the upgrade: %d (%v), want 1", n, err)
	}
	if problems, err := check.Check(ctx, s2); err != nil || len(problems) > 0 {
		t.Errorf("Check after the upgrade = %q, %v; want nothing wrong", problems, err)
	}
	mustIndex(t, s2, emb, path, memtest.SecondHistory(t))
	if problems, err := check.Check(ctx, s2); err != nil || len(problems) > 0 {
		t.Errorf("Check after indexing the upgraded store = %q, %v; want nothing wrong", problems, err)
	}
}

// reopenAfter runs stmts on s's database (to take the store back to an
// older schema), closes s and opens the store again, as the next deja
// would; the store it returns is closed when the test ends.
func reopenAfter(t *testing.T, s *store.Store, stmts ...string) *store.Store {
	t.Helper()
	ctx := context.Background()
	for _, stmt := range stmts {
		if _, err := memtest.RawDB(t, s).ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	dir := s.Dir()
	s.Close()
	s2, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}
