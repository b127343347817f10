package recall

import (
	"context"
	"github.com/deja-dev/deja/memory/store"
	"reflect"
	"slices"
	"testing"
)

const spellingHistory = `
# aider chat started at 2026-03-02 09:00:00

#### the gunicorn workers die under load, raise the timeout in deploy/gunicorn.conf.py  

I raised the worker timeout to 120 seconds in deploy/gunicorn.conf.py and set four workers.

> Applied edit to deploy/gunicorn.conf.py  

#### rename loadVocabContent to readVocabulary in src/vocabContent.ts  

Renamed the function and its two callers in src/vocabContent.ts.

> Applied edit to src/vocabContent.ts  

#### make the sidebar columns vertical on narrow screens  

The sidebar now stacks its columns vertically below 600 pixels.
`

// spellingStore is a store of spellingHistory, closed when t ends.
func spellingStore(t *testing.T) *store.Store { return historyStore(t, spellingHistory) }

// TestRecallReadsTheNearestWordForOneNoTurnHolds: a misspelled word (a
// name, an identifier, a file) that no turn holds is read as the store's
// nearest word, the answer says so, and the turn it meant comes first;
// a word a turn holds, a word of the language that no turn holds, and a
// word too far from any are left as typed.
func TestRecallReadsTheNearestWordForOneNoTurnHolds(t *testing.T) {
	ctx := context.Background()
	s := spellingStore(t)
	for _, c := range []struct {
		query string
		read  []Respelling
		turn  int // the turn that must come first; -2 when nothing may come back
	}{
		{"gunicron workers timeout", []Respelling{{"gunicron", "gunicorn"}}, 0},
		{"loadVocabContnt", []Respelling{{"loadVocabContnt", "loadVocabContent"}}, 1},
		{"src/vocabContnt.ts", []Respelling{{"vocabContnt", "vocabContent"}}, 1},
		{"deploy/gunicron.conf.py", []Respelling{{"gunicron", "gunicorn"}}, 0},
		// Spelled right, held by a turn: never replaced.
		{"gunicorn workers", nil, 0},
		// A word people write that no turn holds is no misspelling.
		{"horizontal sidebar columns", nil, 2},
		// Nothing near enough: the missing literal stays missing.
		{"src/paymentWebhook.ts", nil, -2},
	} {
		r, err := Recall(ctx, s, Options{Query: c.query, Mode: Keyword, Limit: 3})
		if err != nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		if !slices.Equal(r.Respelled, c.read) {
			t.Errorf("%q: read %v, want %v", c.query, r.Respelled, c.read)
		}
		switch {
		case c.turn == -2 && len(r.Results) != 0:
			t.Errorf("%q: %d results, want none (not found: %v)", c.query, len(r.Results), r.NotFound)
		case c.turn >= 0 && (len(r.Results) == 0 || r.Results[0].Turn != c.turn):
			t.Errorf("%q: results %+v, want turn %d first", c.query, r.Results, c.turn)
		}
	}
}

func TestEditDistanceCountsASwapAsOneEdit(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"gunicron", "gunicorn", 2, 1},
		{"castle", "cast", 1, 2},
		{"castle", "cast", 2, 2},
		{"", "abc", 5, 3},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3},
		{"héllo", "hello", 1, 1},
	} {
		if got := editDistance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

// TestRespellingFromTheLoadedVocabulary: a long-running process's loaded
// vocabulary gives the same readings as the index read per query, and
// a change to the store drops it.
func TestRespellingFromTheLoadedVocabulary(t *testing.T) {
	ctx := context.Background()
	s := spellingStore(t)
	queries := []string{"gunicron workers timeout", "loadVocabContnt", "src/vocabContnt.ts", "horizontal sidebar columns", "src/paymentWebhook.ts"}
	read := func() [][]Respelling {
		var out [][]Respelling
		for _, q := range queries {
			r, err := Recall(ctx, s, Options{Query: q, Mode: Keyword})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Respelled)
		}
		return out
	}
	fromIndex := read()
	if err := PreloadVocabulary(ctx, s); err != nil {
		t.Fatal(err)
	}
	if len(rc(s).vocab) == 0 {
		t.Fatal("no vocabulary loaded")
	}
	if fromMemory := read(); !reflect.DeepEqual(fromMemory, fromIndex) {
		t.Errorf("from the loaded vocabulary %v, from the index %v", fromMemory, fromIndex)
	}
	s.Invalidate()
	if rc(s).vocab != nil {
		t.Error("the vocabulary outlived a change to the store")
	}
}
