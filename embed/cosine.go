package embed

import (
	"fmt"
	"math"
)

// Cosine returns the cosine similarity of a and b, in [-1, 1]. It returns 0
// when either vector is zero, so a text with no semantic signal is similar
// to nothing. Vectors of different lengths come from different embedders
// and must never be compared: Cosine panics on them.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("embed.Cosine: vectors of dimension %d and %d come from different embedders", len(a), len(b)))
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}
