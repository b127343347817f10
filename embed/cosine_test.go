package embed

import (
	"math"
	"testing"
)

func TestCosine(t *testing.T) {
	for _, tc := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{1, 0}, 1},
		{[]float32{1, 0}, []float32{0, 1}, 0},
		{[]float32{1, 0}, []float32{-2, 0}, -1},
		{[]float32{3, 4}, []float32{4, 3}, 24.0 / 25},
		{[]float32{0, 0}, []float32{1, 0}, 0},
		{[]float32{0, 0}, []float32{0, 0}, 0},
	} {
		if got := Cosine(tc.a, tc.b); math.Abs(float64(got)-tc.want) > 1e-6 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestCosinePanicsOnMixedEmbedders(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Cosine compared a 2-d and a 3-d vector without panicking")
		}
	}()
	Cosine([]float32{1, 0}, []float32{1, 0, 0})
}
