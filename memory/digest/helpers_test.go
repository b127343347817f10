package digest

import (
	"context"
	"testing"

	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
)

// mustIndex indexes paths with the index package and fails the test on
// any problem.
func mustIndex(t *testing.T, s *store.Store, emb *memtest.WordsEmbedder, paths ...string) index.Report {
	t.Helper()
	opts := index.Options{Paths: paths}
	if emb != nil {
		opts.Embedder = emb
	}
	rep, err := index.Index(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Errorf("unexpected problems: %v", rep.Problems)
	}
	return rep
}
