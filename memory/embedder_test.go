package memory

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/deja-dev/deja/embed"
)

// wordsEmbedder is a deterministic test embedder: a bag of hashed words,
// with a few synonyms folded together so a paraphrase can match. Unknown
// text (no letters) gives a zero vector, as the built-in embedder does
// for words it does not know.
type wordsEmbedder struct {
	identity string
	dim      int
	calls    int
	texts    int
	fail     error
}

var synonyms = map[string]string{
	"tenant": "tenant", "tenants": "tenant", "customer": "tenant", "customers": "tenant", "organisation": "tenant",
	"query": "query", "queries": "query", "sql": "query", "select": "query",
	"bug": "bug", "leak": "bug", "leaks": "bug", "broken": "bug", "failing": "bug",
	"test": "test", "tests": "test", "suite": "test",
}

func newWordsEmbedder() *wordsEmbedder { return &wordsEmbedder{identity: "test:words", dim: 64} }

func (e *wordsEmbedder) Identity() string { return e.identity }
func (e *wordsEmbedder) Dimension() int   { return e.dim }

func (e *wordsEmbedder) Embed(_ context.Context, _ embed.Kind, texts []string) ([][]float32, error) {
	if e.fail != nil {
		return nil, e.fail
	}
	e.calls++
	e.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) < 3 || w == "xyzzy" {
				continue
			}
			if s, ok := synonyms[w]; ok {
				w = s
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%uint32(e.dim)]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}
