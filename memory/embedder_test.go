package memory

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"testing"
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
	// mu guards the counts: recalls embed their queries concurrently.
	mu    sync.Mutex
	calls int
	texts int
	fail  error
	// refuse, when set, makes every text containing it refused, as a
	// model refuses a text longer than its context; refused counts them.
	refuse   string
	refused  int
	revision string
}

// Revision is the embedder's revision: refusals are retried when it
// changes.
func (e *wordsEmbedder) Revision() string { return e.revision }

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
	e.mu.Lock()
	e.calls++
	e.texts += len(texts)
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	var rerr *embed.RefusedError
	for i, t := range texts {
		if e.refuse != "" && strings.Contains(t, e.refuse) {
			e.mu.Lock()
			e.refused++
			e.mu.Unlock()
			if rerr == nil {
				rerr = &embed.RefusedError{Model: e.identity}
			}
			rerr.Texts = append(rerr.Texts, embed.Refusal{Index: i, Reason: "longer than the model's context even when cut"})
			continue
		}
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
	if rerr != nil {
		return out, rerr
	}
	return out, nil
}

// TestIndexKeepsGoingPastARefusedTurn: a turn the embedder refuses is
// stored, named once, counted as having no vector rather than as lacking
// one, and not sent again until the embedder's revision changes.
func TestIndexKeepsGoingPastARefusedTurn(t *testing.T) {
	s, path := fixture(t)
	emb := newWordsEmbedder()
	emb.refuse, emb.revision = "Docker", "r1"
	rep, err := s.Index(context.Background(), IndexOptions{Paths: []string{path}, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NewTurns != 3 || rep.Embedded != 2 || rep.Lacking != 0 {
		t.Fatalf("report %+v, want 3 turns stored, 2 embedded and none lacking", rep)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "1 turn has no vector: aider-") ||
		!strings.Contains(rep.Problems[0], "/0, longer than the model's context even when cut") {
		t.Fatalf("problems %q, want the refused turn named", rep.Problems)
	}
	st, err := s.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e := st.Embedders[0]; e.Turns != 2 || e.Lacking != 0 || e.NoVector != 1 {
		t.Errorf("status %+v, want 2 embedded, 0 lacking, 1 without a vector", e)
	}
	if r := mustRecall(t, s, nil, "docker image", Keyword); len(r.Results) == 0 {
		t.Error("keyword recall does not find the refused turn")
	}

	// The next runs leave it alone, with the same revision...
	mustIndex(t, s, emb, path)
	mustIndex(t, s, emb, path)
	if emb.refused != 1 {
		t.Errorf("the refused turn was sent %d times over three runs, want once", emb.refused)
	}
	// ...and try it again under a new one (another model, another deja).
	emb.revision, emb.refuse = "r2", ""
	rep = mustIndex(t, s, emb, path)
	if rep.Embedded != 1 || rep.Lacking != 0 {
		t.Errorf("report %+v after the revision changed, want the refused turn embedded", rep)
	}
	if st, _ := s.Status(context.Background()); st.Embedders[0].NoVector != 0 || st.Embedders[0].Turns != 3 {
		t.Errorf("status %+v, want all 3 turns embedded", st.Embedders[0])
	}
}
