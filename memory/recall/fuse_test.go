package recall

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
)

func TestInOrder(t *testing.T) {
	q := words("why isn't backoff retrying")
	cases := []struct {
		text string
		want float64
	}{
		{"why isn't backoff catching and retrying any of those errors", 1},
		{"backoff is not catching any of those exceptions? why?", 0.2},
		{"how are you?", 0},
		{"", 0},
	}
	for _, c := range cases {
		if got := inOrder(q, joinedWords(c.text)); got != c.want {
			t.Errorf("%q: %.2f, want %.2f", c.text, got, c.want)
		}
	}
}

// TestFuseNearVerbatimFirst: a question holding the query's words in
// order outranks turns that placed higher in both lists, and a very long
// turn in the middle of both lists falls behind a turn first in one.
func TestFuseNearVerbatimFirst(t *testing.T) {
	tune := DefaultTuning("test")
	q := parseQuery("why isn't backoff retrying")
	sem := []semanticHit{{turnID: 1, similarity: 0.7}, {turnID: 2, similarity: 0.6}, {turnID: 3, similarity: 0.5}}
	kw := []keywordHit{{turnID: 2, bm25: -5}, {turnID: 1, bm25: -4}, {turnID: 3, bm25: -3}}
	shapes := map[int64]*turnFacts{
		1: {chars: 12, words: joinedWords("how are you?")},
		2: {chars: 300, words: joinedWords("what is the retry policy")},
		3: {chars: 400, words: joinedWords("why isn't backoff catching and retrying any of those errors")},
	}
	out := fuse(sem, kw, false, tune, q, shapes)
	if out[0].turnID != 3 {
		t.Errorf("first is turn %d, want the near-verbatim turn 3: %+v", out[0].turnID, out)
	}
	tune.Verbatim = 0
	if out := fuse(sem, kw, false, tune, q, shapes); out[0].turnID == 3 {
		t.Errorf("without the test, turn 3 (last in both lists) ranks first: %+v", out)
	}

	q = parseQuery("release notes")
	shapes = map[int64]*turnFacts{1: {chars: 40000, words: joinedWords("translate it all to french")}, 2: {chars: 800}, 3: {chars: 500}}
	sem = []semanticHit{{turnID: 1, similarity: 0.6}, {turnID: 3, similarity: 0.5}}
	kw = []keywordHit{{turnID: 2, bm25: -5}, {turnID: 1, bm25: -4}}
	out = fuse(sem, kw, false, DefaultTuning("test"), q, shapes)
	if out[0].turnID == 1 {
		t.Errorf("the 40,000-character turn, 1st and 2nd, still ranks first: %+v", out)
	}
}

// TestTinyStoreDomainIsTheCorpusDomain: in a store of two turns, the
// domain test sees an off-topic query as off topic and a paraphrase as on
// topic, as in the whole corpus: the store's mean alone says otherwise.
func TestTinyStoreDomainIsTheCorpusDomain(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "shop")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(project, aider.HistoryFileName)
	history := `
# aider chat started at 2026-03-02 10:00:00

#### why does the login page time out  

The login handler waits on the session store with no deadline; when Redis is slow the request hangs until the proxy gives up after 30 seconds. I added a 2 second timeout and an error page.

#### add a retry to the payment webhook  

The webhook handler now retries the provider call three times with exponential backoff before it answers 502, and logs each attempt.
`
	if err := os.WriteFile(path, []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Index(ctx, s, index.Options{Paths: []string{path}, Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	mean := func(q string) (plain, shrunk float32) {
		vecs, err := emb.Embed(ctx, embed.Query, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		cols, err := collections(ctx, s, emb.Identity(), Scope{})
		if err != nil {
			t.Fatal(err)
		}
		qvec := segment.Normalize(vecs[0])
		return meanSimilarity(sums(cols), qvec), shrunkMean(sums(cols), qvec, domainPrior(emb.Identity()))
	}
	domain := Domain(emb.Identity())
	plain, shrunk := mean("banana bread recipe with walnuts")
	t.Logf("banana: %.4f %.4f", plain, shrunk)
	if plain < domain || shrunk >= domain+0.03 {
		t.Errorf("off topic: store mean %.3f, shrunk %.3f; want the store alone to pass it (≥ %.2f) and the shrunk mean near or below", plain, shrunk, domain)
	}
	if _, shrunk := mean("how to knit a wool scarf"); shrunk >= domain {
		t.Errorf("off topic: shrunk mean %.3f, want below %.2f", shrunk, domain)
	}
	if _, shrunk := mean("the payment callback should try again when it fails"); shrunk < domain {
		t.Errorf("paraphrase: shrunk mean %.3f, want at least %.2f", shrunk, domain)
	}
	for _, mode := range []Mode{Hybrid, Semantic} {
		r, err := Recall(ctx, s, Options{Query: "the payment callback should try again when it fails", Mode: mode, Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, res := range r.Results {
			found = found || strings.HasPrefix(res.User, "add a retry to the payment webhook")
		}
		if !found {
			t.Errorf("%s: the paraphrase did not find its turn in a store of two (%s)", mode, r.Note)
		}
		for _, q := range []string{"banana bread recipe with walnuts", "how to knit a wool scarf", "zxqvbnm plorth"} {
			r, err := Recall(ctx, s, Options{Query: q, Mode: mode, Embedder: emb})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Results) != 0 {
				t.Errorf("%s %q: %d results in a store of two", mode, q, len(r.Results))
			}
		}
	}
}

// TestJoinedWordsAreWords: joinedWords keeps exactly words' words, in
// order (nextWord reads them back), whatever the text: cases, other
// scripts, marks, digits, invalid UTF-8, runs of separators at either end.
func TestJoinedWordsAreWords(t *testing.T) {
	texts := []string{"", "   ", "why isn't backoff retrying?", "  Ünïcode  ÄND ßtraße, 東京 2024!! ",
		"a\xffb \xc3 c", "--x--y--", "x", "tab\tnew\nline\r\nend", "İstanbul ǅ ﬁle"}
	rng := rand.New(rand.NewPCG(7, 7))
	alphabet := []rune("aZ9 _-.é東\u0301\u00a0\t")
	for range 500 {
		r := make([]rune, rng.IntN(30))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(r))
	}
	for _, text := range texts {
		joined := joinedWords(text)
		var got []string
		for w, rest, ok := nextWord(joined); ok; w, rest, ok = nextWord(rest) {
			got = append(got, w)
		}
		if want := words(text); !slices.Equal(got, want) {
			t.Fatalf("%q: joined %q reads back %q, want words' %q", text, joined, got, want)
		}
	}
}
