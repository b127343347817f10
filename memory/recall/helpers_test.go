package recall

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	indexing "github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
)

// mustIndex indexes paths with the index package and fails the test on
// any problem.
func mustIndex(t *testing.T, s *store.Store, emb *memtest.WordsEmbedder, paths ...string) indexing.Report {
	t.Helper()
	opts := indexing.Options{Paths: paths}
	if emb != nil {
		opts.Embedder = emb
	}
	rep, err := indexing.Index(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Errorf("unexpected problems: %v", rep.Problems)
	}
	return rep
}

func mustRecall(t *testing.T, s *store.Store, emb *memtest.WordsEmbedder, q string, mode Mode) *Answer {
	t.Helper()
	opts := Options{Query: q, Mode: mode, Limit: 5}
	if emb != nil {
		opts.Embedder = emb
	}
	r, err := Recall(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sessionIDs are the stored sessions' IDs, newest first, as 'deja
// sessions' lists them.
func sessionIDs(t *testing.T, s *store.Store) []string {
	t.Helper()
	ids, err := store.QueryStrings(context.Background(), s.Read(),
		`SELECT id FROM sessions ORDER BY started_ns IS NULL, started_ns DESC, path, ordinal`)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// semanticSig is what a semantic recall found, by session and turn (turn
// IDs differ between stores), with the similarity to six places.
func semanticSig(t *testing.T, s *store.Store, emb *memtest.WordsEmbedder) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"customers see other customer's rows", "shrink the container image", "how to install the program", "tests"} {
		r, err := Recall(context.Background(), s, Options{Query: q, Mode: Semantic, Limit: 50, Embedder: emb,
			Tuning: &Tuning{FusionK: FusionK, Floor: 0.01}})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:", q)
		for _, x := range r.Results {
			fmt.Fprintf(&b, " %s/%d=%.6f", x.SessionID, x.Turn, x.Similarity)
		}
		fmt.Fprintf(&b, " note=%q\n", r.Note)
	}
	return memtest.SessionHash.ReplaceAllString(b.String(), "aider-P-")
}

// historyStore is a store of one aider history, embedded with the words
// embedder, closed when t ends.
func historyStore(t *testing.T, history string) *store.Store {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Open(context.Background(), filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	path := memtest.WriteHistory(t, dir, ".aider.chat.history.md", []byte(history))
	if _, err := indexing.Index(context.Background(), s, indexing.Options{Paths: []string{path}, Embedder: memtest.NewWordsEmbedder()}); err != nil {
		t.Fatal(err)
	}
	return s
}
