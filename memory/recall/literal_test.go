package recall

import (
	"github.com/deja-dev/deja/memory/memtest"
	"slices"
	"strings"
	"testing"
)

// TestRecallMissingLiteralFindsNothing: a path, command, identifier or
// quoted phrase that no turn holds returns nothing in every mode, and the
// note names it, even where its words alone would find meaning neighbours.
func TestRecallMissingLiteralFindsNothing(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	cases := []struct{ query, missing string }{
		{"internal/db/orders.go", "internal/db/orders.go"},
		{"src/components/Sidebar.tsx", "src/components/Sidebar.tsx"},
		{`"npm run lint"`, "npm run lint"},
		{"go test -race ./...", "go test -race ./..."},
		{"WithCustomer", "WithCustomer"},
		{`"tenant predicate is missing"`, "tenant predicate is missing"},
		{"the tenant bug in orders_test.go", "orders_test.go"},
	}
	for _, c := range cases {
		for _, mode := range []Mode{Hybrid, Semantic, Keyword} {
			r := mustRecall(t, s, emb, c.query, mode)
			if len(r.Results) != 0 {
				t.Errorf("%s %q: %d results, first %q; want none", mode, c.query, len(r.Results), r.Results[0].User)
			}
			if !slices.Equal(r.NotFound, []string{c.missing}) || r.Note != "no turn mentions "+c.missing {
				t.Errorf("%s %q: not found %q, note %q; want %q named", mode, c.query, r.NotFound, r.Note, c.missing)
			}
		}
	}
}

// TestRecallLiteralsMustMeetInOneTurn: two exact parts each held by some
// turn but never by the same one find nothing, and the note says so.
func TestRecallLiteralsMustMeetInOneTurn(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	r := mustRecall(t, s, emb, "internal/db/query.go README.md", Hybrid)
	if len(r.Results) != 0 || r.Note != "no turn mentions internal/db/query.go and README.md together" {
		t.Errorf("%d results, note %q", len(r.Results), r.Note)
	}
}

// TestRecallMixedQueryKeepsBothHalves: the literal part filters, the rest
// ranks. "query.go" alone is held by one turn; with words it still finds
// only that turn, and a mixed query whose literal is missing finds nothing.
func TestRecallMixedQueryKeepsBothHalves(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	for _, mode := range []Mode{Hybrid, Semantic, Keyword} {
		r := mustRecall(t, s, emb, "the customer data leak in query.go", mode)
		if len(r.Results) != 1 || !strings.HasPrefix(r.Results[0].User, "Show me the failing query") {
			t.Errorf("%s: %d results %v; want the query.go turn alone", mode, len(r.Results), users(r))
		}
	}
	// "image" is in one turn, "README.md" in another: the literal wins.
	r := mustRecall(t, s, emb, "docker image notes in README.md", Hybrid)
	if len(r.Results) != 1 || !strings.HasPrefix(r.Results[0].User, "Make the README") {
		t.Errorf("README.md: %v; want the README turn alone", users(r))
	}
}

// TestRecallGuessedLiteralFallsBackToWords: what only looks like a command
// or an acronym and is held by no turn is read as words.
func TestRecallGuessedLiteralFallsBackToWords(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	for _, q := range []string{"docker image big", "why is the IMAGE big"} {
		r := mustRecall(t, s, emb, q, Keyword)
		if len(r.Results) == 0 || !strings.HasPrefix(r.Results[0].User, "Why is the Docker image") || len(r.NotFound) > 0 {
			t.Errorf("%q: %v, not found %q; want the Docker turn", q, users(r), r.NotFound)
		}
	}
}

func TestParseQueryGuessesOnlyWhatCouldBeProse(t *testing.T) {
	cases := []struct {
		query   string
		exact   []string
		guessed []string
	}{
		{"go test ./...", []string{"go test ./..."}, nil},
		{"docker image smaller", []string{"docker image smaller"}, []string{"docker image smaller"}},
		{`"npm run lint"`, []string{"npm run lint"}, nil},
		{"why does the API fail", []string{"API"}, []string{"API"}},
		{"MAX_RETRIES in config.py", []string{"MAX_RETRIES", "config.py"}, nil},
		{"see e.g. the docs", []string{"e.g"}, []string{"e.g"}},
		{"the tenant bug", nil, nil},
		{"python script in utils.py", []string{"utils.py"}, nil},
		{"git commit -m in the hook", []string{"git commit -m in the hook"}, nil},
		// A program deja does not list, with a flag, is a command too;
		// a dictionary word before a flag, or prose around it, is not.
		{"journalctl -u nginx", []string{"journalctl -u nginx"}, nil},
		{"Get-Service -Name sshd", []string{"Get-Service -Name sshd"}, nil},
		{"rsync --dry-run backup", []string{"rsync --dry-run backup"}, nil},
		{"fix --force handling", nil, nil},
		{"add the --verbose flag", nil, nil},
		{"journalctl output for the api", nil, nil},
	}
	for _, c := range cases {
		q := parseQuery(c.query)
		var guessed []string
		for _, e := range q.exact {
			if q.guessed[e] {
				guessed = append(guessed, e)
			}
		}
		if !slices.Equal(q.exact, c.exact) || !slices.Equal(guessed, c.guessed) {
			t.Errorf("%q: exact %q guessed %q; want %q, %q", c.query, q.exact, guessed, c.exact, c.guessed)
		}
	}
}

func users(r *Answer) []string {
	var out []string
	for _, res := range r.Results {
		out = append(out, res.User)
	}
	return out
}
