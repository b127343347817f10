package team

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/serve"
)

// Recall says whose a folded turn is, and --mine and --from keep one side
// of the exchange in every mode: bob's own turn alone, or alice's alone.
func TestRecallFiltersByOrigin(t *testing.T) {
	ctx := context.Background()
	srv := runServer(t)
	alice, bob := newPeer(t, history(1, 1, "alice")), newPeer(t, history(1, 1, "bob"))
	a, b := alice.connect(t, srv.ClientURL(), "alice"), bob.connect(t, srv.ClientURL(), "bob")
	sync(t, a)
	if rep := sync(t, b); rep.Folded.Turns != 1 {
		t.Fatalf("bob folded %d turns, want alice's 1", rep.Folded.Turns)
	}
	// Both turns hold these words and mean the same (no file name, which
	// would make it a literal query, filtered in SQL alone), so an unfiltered
	// recall finds both and a filter has something to leave out.
	const query = "the answer: backoff doubles"
	rec := func(mode recall.Mode, sc recall.Scope) []recall.Result {
		t.Helper()
		r, err := recall.Recall(ctx, bob.store, recall.Options{Query: query, Mode: mode, Embedder: bob.emb, Scope: sc, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if r.RealizedMode != mode {
			t.Fatalf("%s recall ran as %s (%s)", mode, r.RealizedMode, r.FallbackReason)
		}
		return r.Results
	}
	owners := func(rs []recall.Result) string {
		var who []string
		for _, r := range rs {
			switch {
			case strings.Contains(r.Assistant, "alice answer"):
				who = append(who, "alice:"+r.From)
			case strings.Contains(r.Assistant, "bob answer"):
				who = append(who, "bob:"+r.From)
			default:
				who = append(who, "?:"+r.From)
			}
		}
		sort.Strings(who)
		return strings.Join(who, " ")
	}
	fromAlice := "alice@" + a.Machine()
	for _, mode := range []recall.Mode{recall.Keyword, recall.Semantic, recall.Hybrid} {
		if got := owners(rec(mode, recall.Scope{})); got != "alice:"+fromAlice+" bob:" {
			t.Errorf("%s: unfiltered recall found %q, want bob's own turn (no from) and alice's from %s", mode, got, fromAlice)
		}
		if got := owners(rec(mode, recall.Scope{Mine: true})); got != "bob:" {
			t.Errorf("%s --mine found %q, want bob's own turn alone", mode, got)
		}
		if got := owners(rec(mode, recall.Scope{From: "alice"})); got != "alice:"+fromAlice {
			t.Errorf("%s --from alice found %q, want alice's turn alone, from %s", mode, got, fromAlice)
		}
		// A user is matched whole: a prefix of alice's name is not alice.
		if got := rec(mode, recall.Scope{From: "ali"}); len(got) != 0 {
			t.Errorf("%s --from ali found %q", mode, owners(got))
		}
	}
	// The served recall (deja serve, the MCP recall tool) takes the same
	// filters.
	w, err := recall.OpenWarm(ctx, bob.store.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	served := &serve.Memory{Store: w, Embedder: bob.emb, Mode: recall.Hybrid, Limit: 10}
	for _, c := range []struct {
		req  serve.RecallRequest
		want string
	}{
		{serve.RecallRequest{Query: query}, "alice:" + fromAlice + " bob:"},
		{serve.RecallRequest{Query: query, Mine: true}, "bob:"},
		{serve.RecallRequest{Query: query, From: "alice"}, "alice:" + fromAlice},
	} {
		r, err := served.Recall(ctx, c.req)
		if err != nil {
			t.Fatal(err)
		}
		if got := owners(r.Results); got != c.want {
			t.Errorf("served recall mine=%v from=%q found %q, want %q", c.req.Mine, c.req.From, got, c.want)
		}
	}
	if _, err := served.Recall(ctx, serve.RecallRequest{Query: query, Mine: true, From: "alice"}); !errors.Is(err, serve.ErrBadRequest) {
		t.Errorf("served recall with mine and from: %v, want a bad request", err)
	}

	// A member nothing came from is named as such, with who did send.
	r, err := recall.Recall(ctx, bob.store, recall.Options{Query: query, Mode: recall.Keyword, Scope: recall.Scope{From: "carol"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 0 || r.Note != "no turn from carol: the team's turns in this store are from alice" {
		t.Errorf("--from carol = %d results, note %q", len(r.Results), r.Note)
	}
	// Alice, who folded nothing in, is told her store holds no team turns.
	r, err = recall.Recall(ctx, alice.store, recall.Options{Query: query, Mode: recall.Keyword, Scope: recall.Scope{From: "bob"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 0 || !strings.Contains(r.Note, "this store holds no team's turns yet") {
		t.Errorf("alice's --from bob before folding = %d results, note %q", len(r.Results), r.Note)
	}
}
