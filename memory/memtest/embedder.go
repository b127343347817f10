package memtest

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"unicode"

	"github.com/deja-dev/deja/embed"
)

// wordsEmbedder is a deterministic test embedder: a bag of hashed words,
// with a few synonyms folded together so a paraphrase can match. Unknown
// text (no letters) gives a zero vector, as the built-in embedder does
// for words it does not know.
type WordsEmbedder struct {
	Name string
	Dim  int
	// mu guards the counts: recalls embed their queries concurrently.
	mu    sync.Mutex
	Calls int
	Texts int
	Fail  error
	// refuse, when set, makes every text containing it refused, as a
	// model refuses a text longer than its context; refused counts them.
	Refuse  string
	Refused int
	Rev     string
}

// Revision is the embedder's revision: refusals are retried when it
// changes.
func (e *WordsEmbedder) Revision() string { return e.Rev }

var synonyms = map[string]string{
	"tenant": "tenant", "tenants": "tenant", "customer": "tenant", "customers": "tenant", "organisation": "tenant",
	"query": "query", "queries": "query", "sql": "query", "select": "query",
	"bug": "bug", "leak": "bug", "leaks": "bug", "broken": "bug", "failing": "bug",
	"test": "test", "tests": "test", "suite": "test",
}

func NewWordsEmbedder() *WordsEmbedder { return &WordsEmbedder{Name: "test:words", Dim: 64} }

func (e *WordsEmbedder) Identity() string { return e.Name }
func (e *WordsEmbedder) Dimension() int   { return e.Dim }

func (e *WordsEmbedder) Embed(_ context.Context, _ embed.Kind, texts []string) ([][]float32, error) {
	if e.Fail != nil {
		return nil, e.Fail
	}
	e.mu.Lock()
	e.Calls++
	e.Texts += len(texts)
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	var rerr *embed.RefusedError
	for i, t := range texts {
		if e.Refuse != "" && strings.Contains(t, e.Refuse) {
			e.mu.Lock()
			e.Refused++
			e.mu.Unlock()
			if rerr == nil {
				rerr = &embed.RefusedError{Model: e.Name}
			}
			rerr.Texts = append(rerr.Texts, embed.Refusal{Index: i, Reason: "longer than the model's context even when cut"})
			continue
		}
		v := make([]float32, e.Dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) < 3 || w == "xyzzy" {
				continue
			}
			if s, ok := synonyms[w]; ok {
				w = s
			}
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%uint32(e.Dim)]++
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
	if rerr != nil {
		return out, rerr
	}
	return out, nil
}
