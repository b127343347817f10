package embed

import "strings"

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

// KnownWord reports whether the built-in GloVe table holds word (in any
// case): a word people write, not a misspelling or a name the table never
// saw. Recall reads only unknown words as possible misspellings.
func KnownWord(word string) bool {
	t, err := openGlove()
	if err != nil {
		return false
	}
	_, ok := t.lookup([]byte(strings.ToLower(word)))
	return ok
}
