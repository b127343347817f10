package recall

import (
	"context"
	"math"
	"testing"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store/segment"
)

// TestDomainRefusesAQueryAboutSomethingElse checks the centroid shortcut
// against the mean over every stored vector, and that a query whose mean
// similarity is below Domain gets no semantic match even above the floor.
func TestDomainRefusesAQueryAboutSomethingElse(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	ctx := context.Background()
	const q = "customers see other customer's rows"

	vecs, err := emb.Embed(ctx, embed.Query, []string{q})
	if err != nil {
		t.Fatal(err)
	}
	qvec := segment.Normalize(vecs[0])
	// The vectors as the segment holds them, summed flat.
	set, err := ReadVectors(ctx, s, emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	n := set.Len()
	for i := range n {
		for j, x := range set.Vector(i) {
			sum += float64(x) * float64(qvec[j])
		}
	}
	want := sum / float64(n)
	cols, err := collections(ctx, s, emb.Identity(), Scope{})
	if err != nil {
		t.Fatal(err)
	}
	got := float64(meanSimilarity(sums(cols), qvec))
	if math.Abs(got-want) > 1e-5 || want <= 0 {
		t.Fatalf("mean similarity %.6f, want %.6f over %d vectors (and above 0)", got, want, n)
	}

	for _, c := range []struct {
		domain float32
		hits   bool
	}{{0, true}, {float32(want) - 0.01, true}, {float32(want) + 0.01, false}} {
		r, err := Recall(ctx, s, Options{Query: q, Mode: Semantic, Embedder: emb, Tuning: &Tuning{FusionK: FusionK, Floor: 0.01, Domain: c.domain}})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.Results) > 0; got != c.hits {
			t.Errorf("domain %.3f (mean %.3f): %d results, want hits %v", c.domain, want, len(r.Results), c.hits)
		}
	}
}
