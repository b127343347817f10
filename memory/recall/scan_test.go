package recall

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/deja-dev/deja/memory/store/segment"
	chromem "github.com/philippgille/chromem-go"
)

// TestScanIsChromemQuery pins the warm collections' scan to the
// chromem-go query it replaced: for collections of every size about the
// cut, of vectors of unit length and of others, holding the same vector
// several times (ties at the cut), in every depth, the chunks and their
// similarities are those chromem-go returns, bit for bit.
func TestScanIsChromemQuery(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	const dim = 24
	for _, size := range []int{1, 2, 37, semanticDepth - 1, semanticDepth, semanticDepth + 1, 250, 1200} {
		for _, unit := range []bool{true, false} {
			set := &segment.VectorSet{Dim: dim, Vecs: make([]float32, 0, size*dim)}
			for i := range size {
				if i > 0 && rng.IntN(5) == 0 {
					// The same text twice: a tie, often at the cut.
					set.Vecs = append(set.Vecs, set.Vector(rng.IntN(i))...)
					continue
				}
				v := make([]float32, dim)
				for j := range v {
					v[j] = float32(rng.NormFloat64())
				}
				if unit {
					v = unitVector(v)
				}
				set.Vecs = append(set.Vecs, v...)
			}
			members := make([]int32, size)
			for i := range members {
				members[i] = int32(i)
			}
			c := newCollection(set, "p", partition{}, members)
			col, err := chromem.NewDB().CreateCollection("p", nil, refuseEmbedding)
			if err != nil {
				t.Fatal(err)
			}
			for i := range size {
				if err := col.AddDocument(ctx, chromem.Document{ID: strconv.Itoa(i), Embedding: set.Vector(i)}); err != nil {
					t.Fatal(err)
				}
			}
			for q := range 5 {
				qvec := make([]float32, dim)
				for j := range qvec {
					qvec[j] = float32(rng.NormFloat64())
				}
				if q == 0 {
					qvec = slices.Clone(set.Vector(rng.IntN(size)))
				}
				for _, timed := range []bool{false, true} {
					want, err := queryChromem(ctx, col, qvec, timed)
					if err != nil {
						t.Fatal(err)
					}
					got := queryAll([]*collection{c}, qvec, timed)[0]
					sortChunks(want)
					sortChunks(got)
					if !slices.Equal(got, want) {
						t.Fatalf("size %d unit %v query %d timed %v: scan gave %d chunks %v…, chromem-go %d %v…", size, unit, q, timed, len(got), got[:min(3, len(got))], len(want), want[:min(3, len(want))])
					}
				}
			}
		}
	}
}
