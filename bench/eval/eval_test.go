//go:build !race

// The race detector makes indexing the corpus take minutes; this test runs
// in the plain 'go test ./...' only.

package main

import (
	"context"
	"testing"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory"
)

// TestHybridBeatsEachListAndNegativesFindNothing holds the eval's promises:
// on the whole query set hybrid is at least as good as the better single
// mode, and every negative query returns nothing in every mode.
func TestHybridBeatsEachListAndNegativesFindNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the corpus")
	}
	paths, err := Corpus("../../../shared/aider/corpus")
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	qs, err := LoadQueries("queries.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 40 {
		t.Errorf("%d queries, want at least 40", len(qs))
	}
	ctx := context.Background()
	s, err := memory.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	e := &Eval{Store: s, Embedder: emb, Queries: qs}
	if _, err := e.Index(ctx, paths); err != nil {
		t.Fatal(err)
	}
	tune := memory.DefaultTuning(emb.Identity())
	all := map[memory.Mode]Score{}
	for _, mode := range []memory.Mode{memory.Hybrid, memory.Semantic, memory.Keyword} {
		scores, _, err := e.Run(ctx, mode, tune)
		if err != nil {
			t.Fatal(err)
		}
		all[mode] = scores["all"]
		if neg := scores["negative"]; neg.Empty != neg.Negatives {
			t.Errorf("%s: %d of %d negatives returned results", mode, neg.Negatives-neg.Empty, neg.Negatives)
		}
		t.Logf("%-8s %s", mode, scores["all"])
	}
	h := all[memory.Hybrid]
	for _, single := range []memory.Mode{memory.Semantic, memory.Keyword} {
		o := all[single]
		if h.Hit1 < o.Hit1 || h.Hit5 < o.Hit5 || h.MRR < o.MRR {
			t.Errorf("hybrid (%s) is worse than %s (%s)", h, single, o)
		}
	}
}
