package embed

import (
	"context"
	"math"
	"sync"
)

// BuiltinIdentity names the built-in embedder's vectors: the word table's
// own name, since vectors of another table must never mix with its own. A
// changed glove100d.bin needs a new name here and its checksum in
// builtinTableSHA256 (TestTableChecksumNamesTheIdentity fails until both
// change): a store then embeds its turns again under the new name.
const BuiltinIdentity = "builtin:glove-100d-80k"

// builtinTableSHA256 is the SHA-256 of the glove100d.bin that
// BuiltinIdentity names.
const builtinTableSHA256 = "9c70aa3f1f3506b75672d8d5100fd7b939cfb308cf038d51e5ff505cfb56dab1"

// sifA is the smooth-inverse-frequency constant: a word's weight is
// sifA/(sifA+p(w)). With p from Zipf's law over GloVe's 400k-word
// vocabulary, "the" weighs about 0.01, a word of rank 1,000 about 0.9, and
// rarer words about 1, so function words barely move a sentence.
const sifA = 1e-3

// zipfH is the harmonic number H(400,000) ≈ ln(400,000)+γ, which turns a
// frequency rank r into Zipf's estimate p = 1/(r·H) of the word's share of
// GloVe's training text.
const zipfH = 13.477

// openGlove decompresses the compiled-in table once per process; the result is
// read-only and shared by every Builtin.
var openGlove = sync.OnceValues(func() (*table, error) { return openTable(gloveTable) })

// Builtin embeds text offline with GloVe word vectors compiled into deja: a
// sentence is the smooth-inverse-frequency weighted mean of its words'
// vectors. It needs no network and no model files; the first NewBuiltin of
// a process decompresses the compiled-in table (about 20 ms).
//
// Cosine levels to pick a similarity floor from, measured by
// TestBuiltinCosineLevels over the 25 developer triples in
// triples_test.go: a query and a paraphrase of its answer score 0.38 on
// average (−0.07–0.80), a query and unrelated work from the same kind of
// session 0.09 (−0.26–0.34), and everyday nonsense ("purple elephant
// banana") against those texts 0.02. Text with no known word scores 0
// against everything. A floor near 0.2 drops most unrelated hits; these
// levels are lower than a transformer model's, so a floor tuned for Ollama
// does not carry over.
type Builtin struct {
	table *table
}

// NewBuiltin returns the offline GloVe embedder. It is cheap to call
// repeatedly: the table is opened once per process, on first use.
func NewBuiltin() (*Builtin, error) {
	t, err := openGlove()
	if err != nil {
		return nil, err
	}
	return &Builtin{table: t}, nil
}

// Identity returns "builtin:glove-100d-80k".
func (b *Builtin) Identity() string { return BuiltinIdentity }

// Dimension returns 100.
func (b *Builtin) Dimension() int { return b.table.dims }

// Embed returns one unit vector per text. Documents and queries are embedded
// alike. A text with no word the table knows (empty, punctuation, gibberish)
// gets a zero vector, which Cosine scores 0 against everything.
func (b *Builtin) Embed(ctx context.Context, _ Kind, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var scratch []byte
	for i, text := range texts {
		// Checking every text would cost more than the embedding of a
		// short one; every 256 texts keeps cancellation under a millisecond.
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i], scratch = b.sentence(text, scratch)
	}
	return out, nil
}

// sentence embeds one text.
func (b *Builtin) sentence(text string, scratch []byte) ([]float32, []byte) {
	vec := make([]float32, b.table.dims)
	words := 0
	scratch = b.table.forEachWord(text, scratch, func(i int) {
		b.table.addTo(vec, i, sifWeight(i))
		words++
	})
	if words == 0 {
		return vec, scratch
	}
	normalize(vec)
	return vec, scratch
}

// sifWeight is the smooth-inverse-frequency weight of the word at table
// index i; the table is in frequency order, so i+1 is the word's rank.
func sifWeight(i int) float32 {
	p := 1 / (float64(i+1) * zipfH)
	return float32(sifA / (sifA + p))
}

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}
