package index

import (
	"context"
	"testing"

	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// mustIndex indexes paths and fails the test on any problem; a test that
// expects problems calls s.Index itself.
func mustIndex(t *testing.T, s *store.Store, emb *memtest.WordsEmbedder, paths ...string) Report {
	t.Helper()
	opts := Options{Paths: paths}
	if emb != nil {
		opts.Embedder = emb
	}
	rep, err := Index(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Errorf("unexpected problems: %v", rep.Problems)
	}
	return rep
}

func mustRecall(t *testing.T, s *store.Store, emb *memtest.WordsEmbedder, q string, mode recall.Mode) *recall.Answer {
	t.Helper()
	opts := recall.Options{Query: q, Mode: mode, Limit: 5}
	if emb != nil {
		opts.Embedder = emb
	}
	r, err := recall.Recall(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
