package embed

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

func newBuiltin(t testing.TB) *Builtin {
	t.Helper()
	b, err := NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func embedOne(t testing.TB, e Embedder, text string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), Query, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func TestBuiltinRanksRelatedAboveUnrelated(t *testing.T) {
	if len(triples) < 20 {
		t.Fatalf("only %d triples; the acceptance bar is at least 20", len(triples))
	}
	b := newBuiltin(t)
	wins := 0
	for _, tr := range triples {
		v, err := b.Embed(context.Background(), Document, []string{tr.query, tr.related, tr.unrelated})
		if err != nil {
			t.Fatal(err)
		}
		related, unrelated := Cosine(v[0], v[1]), Cosine(v[0], v[2])
		if related > unrelated {
			wins++
		} else {
			t.Logf("ranked wrong: %q: related %.3f ≤ unrelated %.3f", tr.query, related, unrelated)
		}
	}
	need := len(triples) * 9 / 10
	t.Logf("related text ranked first for %d of %d triples", wins, len(triples))
	if wins < need {
		t.Errorf("related text ranked first for %d of %d triples, want at least %d", wins, len(triples), need)
	}
}

// TestBuiltinCosineLevels measures the levels builtin.go documents for
// choosing a similarity floor, and fails if they stop being separable.
func TestBuiltinCosineLevels(t *testing.T) {
	b := newBuiltin(t)
	var related, unrelated, nonsense float64
	var targets [][]float32
	for _, tr := range triples {
		q, r, u := embedOne(t, b, tr.query), embedOne(t, b, tr.related), embedOne(t, b, tr.unrelated)
		related += float64(Cosine(q, r))
		unrelated += float64(Cosine(q, u))
		targets = append(targets, r, u)
	}
	// Queries a user might type by mistake or as a test of the tool: words
	// GloVe knows, but nothing a coding session is about.
	junk := []string{
		"asdf qwerty",
		"purple elephant banana",
		"lorem ipsum dolor sit amet",
		"my grandmother knits scarves in winter",
	}
	for _, j := range junk {
		v := embedOne(t, b, j)
		for _, target := range targets {
			nonsense += float64(Cosine(v, target))
		}
	}
	n := float64(len(triples))
	related, unrelated, nonsense = related/n, unrelated/n, nonsense/(float64(len(junk))*float64(len(targets)))
	t.Logf("mean cosine: related %.3f, unrelated %.3f, nonsense %.3f", related, unrelated, nonsense)
	if related-unrelated < 0.15 {
		t.Errorf("related %.3f and unrelated %.3f are too close for any similarity floor", related, unrelated)
	}
	if nonsense >= unrelated {
		t.Errorf("nonsense %.3f scores at least as high as unrelated work %.3f", nonsense, unrelated)
	}
}

func TestBuiltinIdenticalTextsScoreOne(t *testing.T) {
	b := newBuiltin(t)
	text := "the query forgot the tenant filter in user_repo.go"
	v, err := b.Embed(context.Background(), Document, []string{text, text})
	if err != nil {
		t.Fatal(err)
	}
	if c := Cosine(v[0], v[1]); math.Abs(float64(c)-1) > 1e-5 {
		t.Errorf("identical texts score %v, want 1", c)
	}
	if n := norm(v[0]); math.Abs(n-1) > 1e-5 {
		t.Errorf("vector has length %v, want 1", n)
	}
	if len(v[0]) != b.Dimension() || b.Dimension() != 100 {
		t.Errorf("vector has %d dimensions, Dimension says %d, want 100", len(v[0]), b.Dimension())
	}
	q := embedOne(t, b, text)
	if c := Cosine(q, v[0]); math.Abs(float64(c)-1) > 1e-5 {
		t.Errorf("query and document of one text score %v, want 1 (GloVe has no task prefixes)", c)
	}
}

func TestBuiltinTextWithoutKnownWordsHasNoSignal(t *testing.T) {
	b := newBuiltin(t)
	real := embedOne(t, b, "fix the database migration")
	if norm(real) == 0 {
		t.Fatal("a plain English sentence got a zero vector")
	}
	for _, text := range []string{"", "   \n\t", "!!! --- ??? {}();", "xqzvbk wlpfjq", "зщшфыв"} {
		v := embedOne(t, b, text)
		if len(v) != b.Dimension() {
			t.Errorf("%q: got %d dimensions, want %d", text, len(v), b.Dimension())
		}
		if norm(v) != 0 {
			t.Errorf("%q: got a vector of length %v, want the zero vector", text, norm(v))
		}
		if c := Cosine(v, real); c != 0 {
			t.Errorf("%q scores %v against a real sentence, want 0", text, c)
		}
		if c := Cosine(v, v); c != 0 {
			t.Errorf("%q scores %v against itself, want 0: no signal is similar to nothing", text, c)
		}
	}
}

func TestTokenizerReadsCode(t *testing.T) {
	b := newBuiltin(t)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"tenantID", []string{"tenant", "id"}},
		{"user_repo.go", []string{"user", "repo", "go"}},
		{"kebab-case-name", []string{"kebab", "case", "name"}},
		{"internal/memory/fuse.go", []string{"internal", "memory", "fuse", "go"}},
		{"os.IsNotExist(err)", []string{"os", "is", "not", "exist", "err"}},
		{"HTTPServer", []string{"http", "server"}},
		{"parseJSONConfig", []string{"parse", "json", "config"}},
		{"JavaScript and GitHub", []string{"javascript", "and", "github"}},
		{"mp3Player ipv6Address", []string{"mp3", "player", "ipv6", "address"}},
		// wink's GloVe keeps no pure numbers and no accented words.
		{"sha256sum", []string{"sha", "sum"}},
		{"naïve CAFÉ bug", []string{"bug"}},
		{"Hello, World!!", []string{"hello", "world"}},
		{"--- ... ///", nil},
	} {
		var got []string
		b.table.forEachWord(tc.text, nil, func(i int) { got = append(got, b.table.word(i)) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got words %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestBuiltinHonoursCancellation(t *testing.T) {
	b := newBuiltin(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := b.Embed(ctx, Document, []string{"anything"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestNewBuiltinSharesOneTable(t *testing.T) {
	a, b := newBuiltin(t), newBuiltin(t)
	if a.table != b.table {
		t.Error("two NewBuiltin calls opened the table twice")
	}
	if a.Identity() != "builtin:glove-100d-80k" {
		t.Errorf("Identity is %q, want builtin:glove-100d-80k", a.Identity())
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
