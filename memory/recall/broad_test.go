package recall

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/memtest"
)

const broadHistory = `
# aider chat started at 2026-02-02 09:00:00

#### the gunicorn workers die under load, raise the timeout  

I raised the gunicorn worker timeout to 120 seconds.

#### add a bread crumb trail to the docs sidebar  

The sidebar now shows a bread crumb trail above the page title.

#### switch the logging to structured json output  

Logs are now written as one json object a line.
`

// TestKeywordsReachATurnSharingOneWord: where some turn holds half the
// query's words, the keyword list also holds the turns sharing fewer
// (one word here), below it; where none does, a word shared by chance
// finds nothing.
func TestKeywordsReachATurnSharingOneWord(t *testing.T) {
	s := historyStore(t, broadHistory)
	for _, mode := range []Mode{Keyword, Hybrid} {
		r := mustRecall(t, s, memtest.NewWordsEmbedder(), "raise the gunicorn timeout and emit json", mode)
		var got []string
		for _, res := range r.Results {
			got = append(got, res.User)
		}
		if len(got) < 2 || !strings.Contains(got[0], "gunicorn") || !strings.Contains(strings.Join(got[1:], "|"), "json") {
			t.Errorf("%s: %q, want the gunicorn turn first and the json turn after it", mode, got)
		}
	}
	if r := mustRecall(t, s, nil, "banana bread recipe with walnuts", Keyword); len(r.Results) != 0 {
		t.Errorf("one shared word (bread) of four found %d turns, want none: %+v", len(r.Results), r.Results[0].User)
	}
}

// TestBlendKeepsAStrongKeywordMatchFirst: a turn the keyword list ranks
// far above the rest stays first though the semantic list ranks it last,
// and a turn holding under half the query's words counts Partial.
func TestBlendKeepsAStrongKeywordMatchFirst(t *testing.T) {
	tune := DefaultTuning("test")
	q := parseQuery("gunicorn worker timeout")
	sem := []semanticHit{{turnID: 2, similarity: 0.7}, {turnID: 3, similarity: 0.69}, {turnID: 1, similarity: 0.5}}
	kw := []keywordHit{{turnID: 1, bm25: -12, half: true}, {turnID: 2, bm25: -2, half: true}}
	facts := map[int64]*turnFacts{1: {chars: 300}, 2: {chars: 300}, 3: {chars: 300}}
	if out := blend(sem, kw, tune, q, facts, nil); out[0].turnID != 1 {
		t.Errorf("first is turn %d, want the strong keyword match 1: %+v", out[0].turnID, out)
	}
	if out := fuse(sem, kw, false, tune, q, facts); out[0].turnID == 1 {
		t.Errorf("rank fusion alone already put turn 1 first; the test shows nothing: %+v", out)
	}
	// Two turns with the same BM25: the one holding half the words first.
	kw = []keywordHit{{turnID: 4, bm25: -5}, {turnID: 5, bm25: -5, half: true}}
	out := blend(nil, kw, tune, q, map[int64]*turnFacts{4: {chars: 10}, 5: {chars: 10}}, nil)
	if out[0].turnID != 5 || out[1].score != tune.Partial*out[0].score {
		t.Errorf("%+v: want turn 5 first, turn 4 at Partial (%.1f) of its score", out, tune.Partial)
	}
}

// TestHalfTurnsBeyondTheDepthFollowInScope: turns holding half the
// query's words that the any-word list's depth leaves out (210 short
// turns repeating its third word outscore them, long as they are) still
// follow it, marked half, and a scope that leaves out their session
// leaves them out.
func TestHalfTurnsBeyondTheDepthFollowInScope(t *testing.T) {
	var b strings.Builder
	b.WriteString("\n# aider chat started at 2026-02-02 09:00:00\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "\n#### filler note %d  \n\nnothing here.\n", i)
	}
	for i := range 210 {
		fmt.Fprintf(&b, "\n#### alpha alpha alpha %d  \n\nalpha.\n", i)
	}
	b.WriteString("\n# aider chat started at 2026-02-03 09:00:00\n")
	padding := strings.Repeat("other words that say nothing much ", 400)
	for i := range 3 {
		fmt.Fprintf(&b, "\n#### beta and gamma, item %d, %s  \n\n%s\n", i, padding, padding)
	}
	s := historyStore(t, b.String())
	ctx := context.Background()
	q := parseQuery("alpha beta gamma")
	hits, err := keyword(ctx, s, q, Scope{})
	if err != nil {
		t.Fatal(err)
	}
	var half int
	for i, h := range hits {
		if h.half {
			half++
			if i < keywordDepth*2 {
				t.Errorf("a half turn at %d, within the any-word list's depth: the test shows nothing", i)
			}
		}
	}
	if half != 3 {
		t.Fatalf("%d of %d hits marked half, want the 3 beta-gamma turns", half, len(hits))
	}
	ids := sessionIDs(t, s)
	alphaSession := ids[len(ids)-1] // the older one
	hits, err = keyword(ctx, s, q, Scope{Session: alphaSession})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.half {
			t.Errorf("turn %d of another session listed within session %s", h.turnID, alphaSession)
		}
	}
	if len(hits) != keywordDepth*2 {
		t.Errorf("%d hits within the alpha session, want the any-word list's %d", len(hits), keywordDepth*2)
	}
}

// TestKeywordPlaceCountsHalfTheWords: a turn sharing fewer than half the
// query's words is ranked by them but has no keyword place, so place 1
// (which a hook asks of another project's turn) is the best turn holding
// half of them.
func TestKeywordPlaceCountsHalfTheWords(t *testing.T) {
	q := parseQuery("gunicorn worker timeout")
	kw := []keywordHit{{turnID: 1, bm25: -9}, {turnID: 2, bm25: -6, half: true}, {turnID: 3, bm25: -5, half: true}}
	facts := map[int64]*turnFacts{1: {chars: 10}, 2: {chars: 10}, 3: {chars: 10}}
	place := map[int64]int{}
	for _, f := range blend(nil, kw, DefaultTuning("test"), q, facts, nil) {
		place[f.turnID] = f.keywordRank
	}
	if place[1] != 0 || place[2] != 1 || place[3] != 2 {
		t.Errorf("keyword places %v, want turn 1 none, turn 2 first, turn 3 second", place)
	}
}

// TestApostropheTailsAreNoWords: what the index leaves of "Caroline's" or
// "don't" is no query word, and a lone letter is one.
func TestApostropheTailsAreNoWords(t *testing.T) {
	for query, want := range map[string]string{
		"Caroline's hobby":        "caroline hobby",
		"why don't the tests run": "don tests run",
		"vitamin d levels":        "vitamin d levels",
		"type t in the prompt":    "type t prompt",
	} {
		if got := strings.Join(parseQuery(query).words, " "); got != want {
			t.Errorf("%q: words %q, want %q", query, got, want)
		}
	}
}
