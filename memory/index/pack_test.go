package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// toSchema6 turns a store of this schema back into schema 6, as a deja of
// that schema left it: turns a table of plain text, an external-content
// keyword index over it with its delete trigger, no vector_floats, a
// ledger of vectors keyed by embedder and project. Tests
// of older schemas start from it.
func toSchema6(t *testing.T, s *store.Store) {
	t.Helper()
	toSchema7(t, s)
	for _, stmt := range []string{
		`DROP TRIGGER turns_ad`, `DROP TABLE turns_fts`, `DROP VIEW turns`,
		`UPDATE turn_rows SET user = unpack(user), assistant = unpack(assistant)`,
		`ALTER TABLE turn_rows DROP COLUMN chars`,
		`ALTER TABLE turn_rows RENAME TO turns`,
		`CREATE VIRTUAL TABLE turns_fts USING fts5(user, assistant, files, commands,
			content='turns', content_rowid='id', tokenize="porter unicode61 remove_diacritics 2")`,
		`INSERT INTO turns_fts(turns_fts) VALUES ('rebuild')`,
		`CREATE TRIGGER turns_ad AFTER DELETE ON turns BEGIN
			INSERT INTO turns_fts(turns_fts, rowid, user, assistant, files, commands)
			VALUES ('delete', old.id, old.user, old.assistant, old.files, old.commands);
		END`,
		`DROP TABLE vector_floats`,
		`CREATE TABLE v6 (embedder TEXT NOT NULL, project TEXT NOT NULL, turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
			part INTEGER NOT NULL, session_id TEXT NOT NULL, turn INTEGER NOT NULL, vec BLOB,
			PRIMARY KEY (embedder, project, turn_id, part)) WITHOUT ROWID`,
		`INSERT INTO v6 SELECT v.embedder, s.project, v.turn_id, v.part, t.session_id, t.turn, v.vec
			FROM vectors v JOIN turns t ON t.id = v.turn_id JOIN sessions s ON s.id = t.session_id`,
		`DROP TABLE vectors`, `ALTER TABLE v6 RENAME TO vectors`, `CREATE INDEX vectors_turn ON vectors(turn_id)`,
		`CREATE INDEX vectors_pending ON vectors(embedder) WHERE vec IS NOT NULL`,
		`CREATE TRIGGER vectors_dead AFTER DELETE ON vectors WHEN old.vec IS NULL BEGIN
			INSERT INTO vector_dead(embedder, turn_id, part) VALUES (old.embedder, old.turn_id, old.part);
		END`,
		`UPDATE meta SET value = '6' WHERE key = 'schema'`,
	} {
		if _, err := memtest.RawDB(t, s).Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// toSchema7 turns a store of this schema back into schema 7, as a deja of
// schema 7 left it: no ledger checksum, nor its triggers.
func toSchema7(t *testing.T, s *store.Store) {
	t.Helper()
	stmts := []string{`DELETE FROM meta WHERE key = 'ledger'`, `UPDATE meta SET value = '7' WHERE key = 'schema'`}
	for _, table := range store.LedgerTables {
		for _, event := range []string{"i", "d", "u"} {
			stmts = append(stmts, `DROP TRIGGER `+table.Name+`_ledger_`+event)
		}
	}
	for _, stmt := range stmts {
		if _, err := memtest.RawDB(t, s).Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// pageState is the store's auto_vacuum mode and its count of free pages.
func pageState(t *testing.T, s *store.Store) (vacuum, free int) {
	t.Helper()
	if err := memtest.RawDB(t, s).QueryRow(`PRAGMA auto_vacuum`).Scan(&vacuum); err != nil {
		t.Fatal(err)
	}
	if err := memtest.RawDB(t, s).QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil {
		t.Fatal(err)
	}
	return vacuum, free
}

func TestPackRoundTrips(t *testing.T) {
	for _, text := range []string{
		"", "short", strings.Repeat("a", store.PackMin-1),
		strings.Repeat("func (s *Store) Recall(ctx context.Context) {}\n", 40),
		strings.Repeat("ünïcödé ✓ ", 100),
	} {
		p := store.Pack(text)
		if len(text) < store.PackMin && p != nil {
			t.Errorf("%d bytes packed: short texts stay as they are", len(text))
		}
		if p == nil {
			continue
		}
		if len(p) >= len(text) {
			t.Errorf("%d bytes packed to %d", len(text), len(p))
		}
		got, err := store.Unpack(p)
		if err != nil || got != text {
			t.Errorf("unpack(pack(%d bytes)) = %d bytes, %v", len(text), len(got), err)
		}
	}
	if _, err := store.Unpack([]byte("not deflate at all")); err == nil {
		t.Error("a damaged packed text unpacked without an error")
	}
}

// TestTurnsArePackedAndReadBack pins that long questions and answers are
// stored deflated, short ones as text, and that every reader sees the
// text: the turns view, the keyword index and recall.
func TestTurnsArePackedAndReadBack(t *testing.T) {
	ctx := context.Background()
	s, path := memtest.Fixture(t)
	long := strings.Repeat("the ratelimit middleware keeps a token bucket per tenant. ", 20)
	memtest.AppendFile(t, path, "\n# aider chat started at 2026-05-01 09:00:00\n\n#### why does the quokkafalcon limiter drop requests?  \n\n"+long+"\n")
	mustIndex(t, s, nil, path)
	var packed, plain int
	if err := memtest.RawDB(t, s).QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE typeof(assistant) = 'blob'),
		count(*) FILTER (WHERE typeof(assistant) = 'text') FROM turn_rows`).Scan(&packed, &plain); err != nil {
		t.Fatal(err)
	}
	if packed == 0 || plain == 0 {
		t.Fatalf("%d answers packed and %d plain: want both (long and short answers)", packed, plain)
	}
	var text string
	var chars int
	if err := memtest.RawDB(t, s).QueryRowContext(ctx, `SELECT assistant, chars FROM turns WHERE user LIKE '%quokkafalcon%'`).Scan(&text, &chars); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(text) != strings.TrimSpace(long) {
		t.Fatalf("the view reads back %d bytes, want the %d written", len(text), len(long))
	}
	if want := len("why does the quokkafalcon limiter drop requests?") + len(text); chars != want {
		t.Errorf("chars = %d, want %d", chars, want)
	}
	if vacuum, free := pageState(t, s); vacuum != 2 || free != 0 {
		t.Errorf("after an index: auto_vacuum %d with %d free pages, want 2 (incremental) and none", vacuum, free)
	}
	if hits := packedHits(t, s.Dir(), "token bucket per tenant"); len(hits) == 0 {
		t.Error("the privacy scan does not see a packed answer's words")
	}
	keywordRowsMatchTurns(t, s, "packed turns")
	r, err := recall.Recall(ctx, s, recall.Options{Query: "token bucket per tenant", Mode: recall.Keyword})
	if err != nil || len(r.Results) == 0 || !strings.Contains(r.Results[0].Assistant, "token bucket") {
		t.Fatalf("keyword recall of a packed answer: %v %+v", err, r)
	}
	r, err = recall.Recall(ctx, s, recall.Options{Query: `"keeps a token bucket"`, Mode: recall.Keyword})
	if err != nil || len(r.Results) != 1 {
		t.Fatalf("a literal phrase of a packed answer: %v %+v", err, r)
	}
}

// A store of schema 6 held the turns as text with the keyword index
// reading them: opening it packs them, writes the keyword index anew and
// recalls the same; indexing goes on from there.
func TestSchemaUpgradeFrom6PacksTheTurns(t *testing.T) {
	ctx := context.Background()
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	semantic := semanticSig(t, s, emb)
	keyword := keywordSig(t, s)
	toSchema6(t, s)
	var before int64
	if err := memtest.RawDB(t, s).QueryRowContext(ctx, `SELECT sum(length(user) + length(assistant)) FROM turns`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	dir := s.Dir()
	s.Close()
	s2, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := semanticSig(t, s2, emb); got != semantic {
		t.Fatalf("semantic recall after the upgrade\n%s\nbefore\n%s", got, semantic)
	}
	if got := keywordSig(t, s2); got != keyword {
		t.Fatalf("keyword recall after the upgrade\n%s\nbefore\n%s", got, keyword)
	}
	var chars int64
	if err := memtest.RawDB(t, s2).QueryRowContext(ctx, `SELECT sum(chars) FROM turn_rows`).Scan(&chars); err != nil || chars != before {
		t.Fatalf("chars sum to %d (%v), want the %d characters of the turns", chars, err, before)
	}
	keywordRowsMatchTurns(t, s2, "after the upgrade")
	if vacuum, free := pageState(t, s2); vacuum != 2 || free != 0 {
		t.Errorf("after the upgrade: auto_vacuum %d with %d free pages, want 2 (incremental) and none", vacuum, free)
	}
	memtest.AppendFile(t, path, memtest.ThirdSession)
	mustIndex(t, s2, emb, path)
	keywordRowsMatchTurns(t, s2, "indexed after the upgrade")
	if n := keywordHits(t, s2, "ratelimit"); n != 1 {
		t.Errorf("the turn indexed after the upgrade is in %d keyword rows, want 1", n)
	}
}

// TestFullRewritesTheKeywordIndex pins that 'deja index --full' writes
// the contentless keyword index anew from the turns: rows lost from it
// come back, and none is doubled.
func TestFullRewritesTheKeywordIndex(t *testing.T) {
	ctx := context.Background()
	s, path := memtest.Fixture(t)
	mustIndex(t, s, nil, path)
	if _, err := memtest.RawDB(t, s).ExecContext(ctx, `DELETE FROM turns_fts WHERE rowid = (SELECT min(id) FROM turns)`); err != nil {
		t.Fatal(err)
	}
	if keywordMismatch(t, s) == "" {
		t.Fatal("a turn without its keyword row passes the check")
	}
	if _, err := memtest.RawDB(t, s).ExecContext(ctx, `INSERT INTO turns_fts(turns_fts) VALUES ('delete-all')`); err != nil {
		t.Fatal(err)
	}
	if _, err := Index(ctx, s, Options{Paths: []string{path}, Full: true}); err != nil {
		t.Fatal(err)
	}
	keywordRowsMatchTurns(t, s, "after --full")
}

// keywordSig is what keyword and hybrid recall found, by session and turn,
// with each result's score and its text's length and first words.
func keywordSig(t *testing.T, s *store.Store) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"tenant", "docker image size", "migration", `"go test"`, "tests"} {
		for _, mode := range []recall.Mode{recall.Keyword, recall.Hybrid} {
			r, err := recall.Recall(context.Background(), s, recall.Options{Query: q, Mode: mode, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %v:", q, mode)
			for _, x := range r.Results {
				head, _, _ := strings.Cut(x.Assistant, "\n")
				fmt.Fprintf(&b, " %s/%d=%.6f,%d,%d,%q", x.SessionID, x.Turn, x.Score, len(x.User), len(x.Assistant), head)
			}
			fmt.Fprintf(&b, " note=%q\n", r.Note)
		}
	}
	return memtest.SessionHash.ReplaceAllString(b.String(), "aider-P-")
}

// keywordSegments is how many segments the keyword index is in.
func keywordSegments(t *testing.T, s *store.Store) int {
	t.Helper()
	var n int
	if err := memtest.RawDB(t, s).QueryRow(`SELECT count(DISTINCT segid) FROM turns_fts_idx`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestALargeRunCompactsTheKeywordIndex pins that a run writing a large
// share of the store's turns leaves the keyword index in one segment, and
// that a small one leaves the merging to FTS5.
func TestALargeRunCompactsTheKeywordIndex(t *testing.T) {
	s, first := memtest.Fixture(t)
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{first}
	for _, name := range []string{"cart", "billing", "search"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, aider.HistoryFileName)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	// Each history's turns are written to the keyword index by their own
	// statement, so they start out as a segment each.
	rep := mustIndex(t, s, nil, paths[:2]...)
	if rep.NewTurns == 0 || keywordSegments(t, s) != 1 {
		t.Fatalf("the first index wrote %d turns and left %d keyword segments, want 1", rep.NewTurns, keywordSegments(t, s))
	}
	if rep := mustIndex(t, s, nil, paths...); keywordSegments(t, s) != 1 {
		t.Fatalf("a run writing %d of the store's turns left %d keyword segments, want 1", rep.NewTurns, keywordSegments(t, s))
	}
	memtest.AppendFile(t, first, "\n# aider chat started at 2026-08-01 09:00:00\n\n#### Rename the cart total helper  \n\nRenamed it to cartTotal in cart.go.\n")
	if rep := mustIndex(t, s, nil, first); rep.NewTurns != 1 || keywordSegments(t, s) != 2 {
		t.Errorf("a run writing %d turn left %d keyword segments, want 2 (FTS5's own merging)", rep.NewTurns, keywordSegments(t, s))
	}
	keywordRowsMatchTurns(t, s, "after the runs")
}

// TestPackTurnMatchesSQL checks the packing an index run does in Go
// against the SQL it replaced, pack() and length(): the same stored bytes
// and the same length, for texts short and long, multi-byte and with
// invalid UTF-8. A text with a NUL, which the SQL cut there, is stored
// whole.
func TestPackTurnMatchesSQL(t *testing.T) {
	s, _ := memtest.Fixture(t)
	long := strings.Repeat("The migration adds the tenant predicate to every query. ", 20)
	for _, text := range []string{"", "ok", long, "héllo wörld — 日本語 🚀 " + long, "bad \xff\xfe bytes \x80 here " + long,
		"lead without continuation \xc3", "\xc3\x28 \xe2\x82 \xf0\x9f\x98"} {
		p := store.PackTurn(text, text)
		var wantUser any
		var wantLen int
		if err := memtest.RawDB(t, s).QueryRow(`SELECT pack(?1), length(?1) + length(?1)`, text).Scan(&wantUser, &wantLen); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(p.User) != fmt.Sprint(wantUser) || fmt.Sprintf("%T", p.User) != fmt.Sprintf("%T", wantUser) || p.Chars != wantLen {
			t.Errorf("%q: packed %T of %d chars, SQL %T of %d", text, p.User, p.Chars, wantUser, wantLen)
		}
	}
	withNUL := "a\x00b after a NUL " + long
	p := store.PackTurn(withNUL, "")
	var back string
	if err := memtest.RawDB(t, s).QueryRow(`SELECT unpack(?)`, p.User).Scan(&back); err != nil {
		t.Fatal(err)
	}
	if back != withNUL || p.Chars != len(withNUL) {
		t.Errorf("a text with a NUL came back as %d of its %d bytes, %d chars", len(back), len(withNUL), p.Chars)
	}
}
