package recall

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
)

func TestRecallEmptyStoreSaysHowToIndex(t *testing.T) {
	s, _ := memtest.Fixture(t)
	_, err := Recall(context.Background(), s, Options{Query: "x", Embedder: memtest.NewWordsEmbedder()})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "deja index") {
		t.Fatalf("err = %v, want ErrEmpty naming 'deja index'", err)
	}
}

func TestRecallByMeaningFileAndCommand(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	rep := mustIndex(t, s, emb, path)
	if rep.NewTurns != 3 || rep.Sessions != 2 {
		t.Fatalf("report %+v, want 3 turns in 2 sessions", rep)
	}
	cases := []struct {
		query string
		mode  Mode
		user  string
	}{
		{"customers see other customer's rows", Hybrid, "Show me the failing query"},
		{"customers see other customer's rows", Semantic, "Show me the failing query"},
		{"internal/db/query.go", Hybrid, "Show me the failing query"},
		{"query.go", Keyword, "Show me the failing query"},
		{"WithTenant", Hybrid, "Show me the failing query"},
		{"go test ./...", Hybrid, "Show me the failing query"},
		{"Dockerfile", Keyword, "Why is the Docker image so big?"},
	}
	for _, c := range cases {
		r := mustRecall(t, s, emb, c.query, c.mode)
		if len(r.Results) == 0 {
			t.Errorf("%s %q: no results (%s)", c.mode, c.query, r.Note)
			continue
		}
		got := r.Results[0]
		if !strings.HasPrefix(got.User, c.user) {
			t.Errorf("%s %q: first is %q, want %q", c.mode, c.query, got.User, c.user)
		}
		if c.query == "go test ./..." && (len(got.Commands) != 1 || got.Commands[0] != "go test ./...") {
			t.Errorf("go test ./...: first has commands %v", got.Commands)
		}
		if r.RealizedMode != c.mode {
			t.Errorf("%s %q: realized %s (%s)", c.mode, c.query, r.RealizedMode, r.FallbackReason)
		}
	}
}

func TestRecallNonsenseFindsNothingInEveryMode(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	for _, mode := range []Mode{Hybrid, Semantic, Keyword} {
		for _, q := range []string{"xyzzy", "!!! ???", `"zorblax frumious"`} {
			r := mustRecall(t, s, emb, q, mode)
			if len(r.Results) != 0 || r.Note == "" {
				t.Errorf("%s %q: %d results, note %q; want none, with a note", mode, q, len(r.Results), r.Note)
			}
		}
	}
}

func TestRecallFallsBackWithoutTheStoreEmbedder(t *testing.T) {
	s, path := memtest.Fixture(t)
	mustIndex(t, s, memtest.NewWordsEmbedder(), path)
	other := memtest.NewWordsEmbedder()
	other.Name = "test:other"
	r := mustRecall(t, s, other, "internal/db/query.go", Hybrid)
	if r.RealizedMode != Keyword || !strings.Contains(r.FallbackReason, "test:words") {
		t.Fatalf("realized %s, reason %q; want keyword naming the store's embedder", r.RealizedMode, r.FallbackReason)
	}
	if len(r.Results) == 0 {
		t.Fatal("keyword fallback found nothing")
	}
	r = mustRecall(t, s, nil, "query.go", Semantic)
	if r.RealizedMode != Keyword || r.FallbackReason == "" {
		t.Errorf("no embedder: realized %s, reason %q", r.RealizedMode, r.FallbackReason)
	}
}

func TestRecallScope(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	all := mustRecall(t, s, emb, "Dockerfile README.md", Keyword)
	_ = all
	r, err := Recall(context.Background(), s, Options{Query: "image build", Embedder: emb, Scope: Scope{Project: "/elsewhere"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 0 {
		t.Errorf("another project: %d results", len(r.Results))
	}
}

func TestRecallNeverPassesUserTextAsFTSSyntax(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	for _, q := range []string{`"unbalanced`, `AND OR NOT`, `user:query`, `tenant*`, `^query`, `NEAR(a b)`, `(((`, `"" ""`, `query.go"`, `-- DROP TABLE turns;`} {
		for _, mode := range []Mode{Keyword, Hybrid} {
			if _, err := Recall(context.Background(), s, Options{Query: q, Mode: mode, Embedder: emb}); err != nil {
				t.Errorf("%s %q: %v", mode, q, err)
			}
		}
	}
}

func TestRecallFilters(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	ctx := context.Background()
	july18 := time.Date(2026, 7, 18, 0, 0, 0, 0, time.Local)
	cases := []struct {
		name  string
		scope Scope
		want  int // results for a query that matches turns in both sessions
	}{
		{"all", Scope{}, 2},
		{"since", Scope{Since: july18}, 1},
		{"until", Scope{Until: july18}, 1},
		{"project", Scope{Project: filepath.Dir(path)}, 2},
		{"parent of the project", Scope{Project: filepath.Dir(filepath.Dir(path))}, 2},
		{"other project", Scope{Project: filepath.Dir(path) + "x"}, 0},
	}
	for _, c := range cases {
		for _, mode := range []Mode{Keyword, Semantic} {
			r, err := Recall(ctx, s, Options{Query: "tenant image", Mode: mode, Embedder: emb, Scope: c.scope})
			if mode == Semantic {
				r, err = Recall(ctx, s, Options{Query: "docker image build context query tenant", Mode: mode, Embedder: emb, Scope: c.scope, Tuning: &Tuning{FusionK: 60, Floor: 0.01}})
			}
			if err != nil {
				t.Fatal(err)
			}
			sessions := map[string]bool{}
			for _, res := range r.Results {
				sessions[res.SessionID] = true
			}
			if len(sessions) != c.want {
				t.Errorf("%s, %s: results from %d sessions, want %d", c.name, mode, len(sessions), c.want)
			}
		}
	}
	ids := sessionIDs(t, s)
	r, err := Recall(ctx, s, Options{Query: "docker query tenant image", Mode: Hybrid, Embedder: emb, Scope: Scope{Session: ids[1]}})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range r.Results {
		if res.SessionID != ids[1] {
			t.Errorf("--session %s returned a turn of %s", ids[1], res.SessionID)
		}
	}
}

// TestRecallSkipsAProjectWithoutVectors: a project whose every turn the
// embedder has no words for (here Japanese, for the built-in word
// vectors) holds no vector; recall by meaning must still answer from the
// other projects, not fail the query for the whole store.
func TestRecallSkipsAProjectWithoutVectors(t *testing.T) {
	dir := t.TempDir()
	write := func(project, text string) string {
		p := filepath.Join(dir, project, aider.HistoryFileName)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# aider chat started at 2026-07-17 09:00:00\n\n"+text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	en := write("web", "#### why does the login page time out  \n\nThe session lookup blocks on a lock.\n")
	jp := write("greeting", "#### こんにちは  \n\nこんにちは！\n")
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
	if _, err := index.Index(ctx, s, index.Options{Paths: []string{en, jp}, Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{Semantic, Hybrid} {
		r, err := Recall(ctx, s, Options{Query: "sign-in screen hangs", Mode: mode, Embedder: emb})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(r.Results) != 1 || !strings.Contains(r.Results[0].User, "login page") {
			t.Fatalf("%s: %d results (%s), want the login turn", mode, len(r.Results), r.Note)
		}
	}
}

// TestRecallSeesTheStoresOwnWrites: a store that recalled (and so keeps
// its projects and collections loaded) and then indexes a new project, or
// forgets a session, recalls from what it now holds.
func TestRecallSeesTheStoresOwnWrites(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	if r := mustRecall(t, s, emb, "customers see other customer's rows", Semantic); len(r.Results) == 0 {
		t.Fatal("the fixture's tenant turn is not found")
	}
	other := filepath.Join(t.TempDir(), "billing", aider.HistoryFileName)
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("# aider chat started at 2026-07-19 09:00:00\n\n#### invoice totals rounded wrong for euro customers  \n\nRound once per invoice, to the cent.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, other)
	r := mustRecall(t, s, emb, "invoice totals rounded wrong", Semantic)
	if len(r.Results) == 0 || !strings.Contains(r.Results[0].User, "invoice totals") {
		t.Fatalf("after indexing a new project the same store does not find its turn: %d results (%s)", len(r.Results), r.Note)
	}
	id := r.Results[0].SessionID
	if err := s.Forget(context.Background(), []string{id}, store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, res := range mustRecall(t, s, emb, "invoice totals rounded wrong", Semantic).Results {
		if res.SessionID == id {
			t.Fatalf("the forgotten session %s is still recalled", id)
		}
	}
}
