package embed

// WordVectors calls fn with each word of the built-in GloVe table, most
// frequent first, and its vector (dequantised, as the built-in embedder
// uses it), until fn returns false. vec is reused between calls. It is how
// a test model is built from the same words the built-in embedder knows.
func WordVectors(fn func(word string, vec []float32) bool) error {
	t, err := openGlove()
	if err != nil {
		return err
	}
	vec := make([]float32, t.dims)
	for i := range t.count {
		clear(vec)
		t.addTo(vec, i, 1)
		if !fn(t.word(i), vec) {
			return nil
		}
	}
	return nil
}
