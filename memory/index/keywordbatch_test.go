package index

import (
	"context"
	"fmt"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/check"
	"os"
	"strings"
	"testing"
)

// keywordRowsMatchTurns fails unless the keyword index holds exactly the
// words of the turns (keywordMismatch).
func keywordRowsMatchTurns(t *testing.T, s *store.Store, step string) {
	t.Helper()
	if m := keywordMismatch(t, s); m != "" {
		t.Fatalf("%s: %s", step, m)
	}
}

// keywordMismatch says how the keyword index differs from the turns, or
// "" when it holds exactly their words (Store.keywordMismatch), after
// FTS5's own check; an index of no word at all is a mismatch too.
func keywordMismatch(t *testing.T, s *store.Store) string {
	t.Helper()
	ctx := context.Background()
	if _, err := memtest.RawDB(t, s).ExecContext(ctx, `INSERT INTO turns_fts(turns_fts) VALUES ('integrity-check')`); err != nil {
		return fmt.Sprintf("the keyword index is damaged: %v", err)
	}
	m, terms, err := check.KeywordMismatch(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if m == "" && terms == 0 {
		return "the keyword index and the turns hold no word"
	}
	return m
}

func keywordHits(t *testing.T, s *store.Store, word string) int {
	t.Helper()
	var n int
	if err := memtest.RawDB(t, s).QueryRow(`SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?`, word).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func rewriteFile(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%q not in %s", old, path)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestKeywordRowsFollowEveryWrite pins that the turns written in bulk get
// their keyword rows, and that replacing, cutting, re-embedding and
// forgetting turns leave the keyword index matching the turns.
func TestKeywordRowsFollowEveryWrite(t *testing.T) {
	ctx := context.Background()
	s, path := memtest.Fixture(t)
	memtest.AppendFile(t, path, memtest.LongSession)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	keywordRowsMatchTurns(t, s, "first index")
	if keywordHits(t, s, "slog") != 1 || keywordHits(t, s, "docker") == 0 {
		t.Fatalf("after the first index: slog in %d turns, docker in %d", keywordHits(t, s, "slog"), keywordHits(t, s, "docker"))
	}

	// The session's last turn changes: it is replaced.
	rewriteFile(t, path, "Added a RATE_LIMIT_BURST setting", "Added a RATE_LIMIT_MAX setting")
	mustIndex(t, s, emb, path)
	keywordRowsMatchTurns(t, s, "the last turn rewritten")
	if a, b := keywordHits(t, s, "RATE_LIMIT_BURST"), keywordHits(t, s, "RATE_LIMIT_MAX"); a != 0 || b != 1 {
		t.Errorf("after the last turn was rewritten: the old words in %d turns, the new in %d; want 0 and 1", a, b)
	}

	// A turn cut from the middle: the session is kept as it was and the
	// file's is stored beside it.
	rewriteFile(t, path, "#### Log every rejected login with the client address  \n\nThe limiter now logs rejections through slog with the remote address.\n\n", "")
	mustIndex(t, s, emb, path)
	keywordRowsMatchTurns(t, s, "a turn cut from the middle")

	if _, err := Index(ctx, s, Options{Paths: []string{path}, Embedder: emb, Full: true}); err != nil {
		t.Fatal(err)
	}
	keywordRowsMatchTurns(t, s, "--full")

	ids := sessionIDs(t, s)
	if err := s.Forget(ctx, ids[:1], store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	keywordRowsMatchTurns(t, s, "forget")

	s2, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := Index(ctx, s2, Options{Paths: []string{path}, Embedder: emb, window: 1}); err != nil {
		t.Fatal(err)
	}
	keywordRowsMatchTurns(t, s2, "a session a window")
}

// TestSchema4StoreDropsTheInsertTrigger pins that a store written with the
// per-turn trigger is upgraded in place: the trigger goes, so the turns
// indexed next get one keyword row each, not two.
func TestSchema4StoreDropsTheInsertTrigger(t *testing.T) {
	s, path := memtest.Fixture(t)
	mustIndex(t, s, nil, path)
	toSchema6(t, s)
	s2 := reopenAfter(t, s,
		`CREATE TRIGGER turns_ai AFTER INSERT ON turns BEGIN
			INSERT INTO turns_fts(rowid, user, assistant, files, commands)
			VALUES (new.id, new.user, new.assistant, new.files, new.commands);
		END`,
		`UPDATE meta SET value = '4' WHERE key = 'schema'`,
	)
	var triggers int
	if err := memtest.RawDB(t, s2).QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'turns_ai'`).Scan(&triggers); err != nil || triggers != 0 {
		t.Fatalf("%d insert triggers after the upgrade (%v), want none", triggers, err)
	}
	memtest.AppendFile(t, path, memtest.ThirdSession)
	mustIndex(t, s2, nil, path)
	keywordRowsMatchTurns(t, s2, "indexed after the upgrade")
	if n := keywordHits(t, s2, "ratelimit"); n != 1 {
		t.Errorf("the turn indexed after the upgrade is in %d keyword rows, want 1", n)
	}
}

// TestImportOfTwoVersionsOfATurnKeepsTheLater pins that a received batch
// holding a turn twice (published, then edited) leaves the later version's
// words, and only them, in the keyword index.
func TestImportOfTwoVersionsOfATurnKeepsTheLater(t *testing.T) {
	ctx := context.Background()
	s, _ := memtest.Fixture(t)
	turn := func(seq uint64, hash, user string) store.RemoteTurn {
		return store.RemoteTurn{SharedTurn: store.SharedTurn{Session: "laptop-1", Project: "/src/shop", Harness: "aider", Turn: 0, Hash: hash,
			User: user, Assist: "done"}, Origin: "laptop", Person: "ana", Subject: "deja.shop.laptop-1", Seq: seq}
	}
	rep, err := s.ImportTurns(ctx, []store.RemoteTurn{
		turn(1, "h1", "fix the quokkafalcon cache"),
		turn(2, "h2", "fix the zebracornflux cache"),
	}, store.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Written != 2 {
		t.Fatalf("wrote %d turns, want both versions written in order", rep.Written)
	}
	keywordRowsMatchTurns(t, s, "import")
	if a, b := keywordHits(t, s, "quokkafalcon"), keywordHits(t, s, "zebracornflux"); a != 0 || b != 1 {
		t.Errorf("the earlier version is in %d keyword rows and the later in %d, want 0 and 1", a, b)
	}
}
