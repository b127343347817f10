//go:build !race

// The race detector makes indexing the corpus take minutes; this test runs
// in the plain 'go test ./...' only.

package main

import (
	"context"
	"testing"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// TestEvalPromises holds the eval's promises on the corpus: hybrid at
// least as good as the better single mode; every negative and every
// missing literal returns nothing in every mode, in the corpus and in the
// tiny stores; exact lookups and near-verbatim queries rank their turn
// 1st in hybrid; paraphrases do not fall below the figures the README
// states; and no turn crowds the top 5 of more than a few generated
// queries.
func TestEvalPromises(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the corpus")
	}
	paths, err := Corpus("../../../shared/aider/corpus")
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	qs, err := LoadQueries("queries.json")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, q := range qs {
		kinds[q.Kind]++
	}
	if kinds["missing"] < 15 || kinds["verbatim"] < 10 || kinds["hub"] < 5 || kinds["typo"] < 20 {
		t.Errorf("query kinds %v: want at least 15 missing, 10 verbatim, 5 hub, 20 typos", kinds)
	}
	ctx := context.Background()
	s, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	e := &Eval{Store: s, Embedder: emb, Queries: qs}
	if _, err := e.Index(ctx, paths); err != nil {
		t.Fatal(err)
	}
	if err := e.IndexTiny(ctx, "tiny", t.TempDir()); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if len(e.Tiny) != 3 {
		t.Errorf("%d tiny stores, want 3 (2, 3 and 10 turns)", len(e.Tiny))
	}
	tune := recall.DefaultTuning(emb.Identity())
	all := map[recall.Mode]map[string]Score{}
	for _, mode := range []recall.Mode{recall.Hybrid, recall.Semantic, recall.Keyword} {
		scores, _, err := e.Run(ctx, mode, tune)
		if err != nil {
			t.Fatal(err)
		}
		all[mode] = scores
		for _, kind := range []string{"negative", "missing", "tiny negative"} {
			if sc := scores[kind]; sc.Negatives == 0 || sc.Empty != sc.Negatives {
				t.Errorf("%s: %d of %d %s queries returned results", mode, sc.Negatives-sc.Empty, sc.Negatives, kind)
			}
		}
		checkRespelled(t, "aider "+string(mode), scores, 0)
		t.Logf("%-8s %s", mode, scores["all"])
	}
	h := all[recall.Hybrid]
	for _, single := range []recall.Mode{recall.Semantic, recall.Keyword} {
		o := all[single]["all"]
		if h["all"].Hit1 < o.Hit1 || h["all"].Hit5 < o.Hit5 || h["all"].MRR < o.MRR {
			t.Errorf("hybrid (%s) is worse than %s (%s)", h["all"], single, o)
		}
	}
	atLeast := func(what string, got, n, want int) {
		if got < want {
			t.Errorf("hybrid %s: %d of %d, want at least %d", what, got, n, want)
		}
	}
	atLeast("exact hit@1", h["exact"].Hit1, h["exact"].N, h["exact"].N)
	atLeast("verbatim hit@1", h["verbatim"].Hit1, h["verbatim"].N, h["verbatim"].N)
	atLeast("paraphrase hit@5", h["paraphrase"].Hit5, h["paraphrase"].N, 11)
	atLeast("hub probe hit@5", h["hub"].Hit5, h["hub"].N, h["hub"].N)
	// Measured 23 of 23.
	atLeast("typo hit@1", h["typo"].Hit1, h["typo"].N, (9*h["typo"].N+9)/10)
	// 9 with the 8-bit word table; 8 since the table went to 4 bits (the
	// binary from 46 to 29 MB stripped): "[ten] todo app in c sharp" has
	// its target at 0.341, under the 0.35 floor, where 8 bits put it at
	// 0.354. Lowering the floor to keep it lets a hub probe through
	// (docs/recall.md, "The word table at four bits").
	atLeast("tiny-store paraphrase hit@5", h["tiny paraphrase"].Hit5, h["tiny paraphrase"].N, 8)

	gen, err := e.Generate(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"dev", "held-out", "all"} {
		hub, err := e.Hubs(ctx, gen, set, recall.Hybrid, tune)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", set, hub)
		if hub.Queries < 150 {
			t.Errorf("%s: %d queries, want at least 150", set, hub.Queries)
		}
		// Measured 2.9 %, 4.3 % and 3.0 %: a turn in the top 5 of more
		// than one query in twenty is a hub again.
		if hub.Share > 0.05 {
			t.Errorf("%s: %s", set, hub)
		}
		if float64(hub.Verbatim1) < 0.9*float64(hub.Verbatim) {
			t.Errorf("%s: near-verbatim hit@1 %d of %d, want 90 %%", set, hub.Verbatim1, hub.Verbatim)
		}
	}
}

// TestHarnessEvalPromises holds the queries written from the Claude Code,
// Codex, Copilot CLI, Qwen Code, Cursor and pi corpora (harness.json) to the
// figures the README states: every exact lookup in hybrid's top 5 (and at
// least the stated number first), every missing literal empty in every
// mode, and hybrid's
// paraphrase hit@5 and empty negatives no lower than measured.
func TestHarnessEvalPromises(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the harness corpora")
	}
	root := "../../../shared/harness/corpus"
	qs, err := LoadQueries("harness.json")
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	// Measured: claude exact hit@1 8/8, paraphrase hit@5 7/9, negatives
	// 5/6 empty; codex exact hit@1 8/9, paraphrase hit@5 3/9, negatives
	// 5/6 empty; copilot exact hit@1 6/8, paraphrase hit@5 7/8, negatives
	// 6/6 empty; qwen exact hit@1 8/9, paraphrase hit@5 9/10, negatives
	// 6/6 empty; cursor exact hit@1 9/9, paraphrase hit@5 8/10, negatives
	// 6/6 empty; pi (with the OpenClaw session) exact hit@1 9/9,
	// paraphrase hit@5 4/10, negatives 6/6 empty.
	want := map[string]struct{ exact1, para5, negEmpty int }{
		"claude-code": {8, 7, 5},
		"codex":       {8, 3, 5},
		"copilot-cli": {6, 7, 6},
		"qwen-code":   {8, 9, 6},
		"cursor":      {9, 8, 6},
		"pi":          {9, 4, 6},
	}
	ctx := context.Background()
	var typos Score
	for _, c := range harnessCorpora {
		if _, err := HarnessCorpus(root, c.Dir); err != nil {
			t.Skipf("corpus not available: %v", err)
		}
		e, err := HarnessEval(ctx, root, c.Dir, t.TempDir(), emb, qs)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]int{}
		for _, q := range e.Queries {
			kinds[q.Kind]++
		}
		if kinds["paraphrase"] < 8 || kinds["exact"] < 8 || kinds["negative"]+kinds["missing"] < 10 {
			t.Errorf("%s: query kinds %v, want at least 8 paraphrases, 8 exact and 10 negatives", c.Name, kinds)
		}
		tune := recall.DefaultTuning(emb.Identity())
		for _, mode := range []recall.Mode{recall.Hybrid, recall.Semantic, recall.Keyword} {
			sc, _, err := e.Run(ctx, mode, tune)
			if err != nil {
				t.Fatal(err)
			}
			if m := sc["missing"]; m.Empty != m.Negatives {
				t.Errorf("%s %s: %d of %d missing literals returned results", c.Name, mode, m.Negatives-m.Empty, m.Negatives)
			}
			// Codex's "docs/resource_managment.md" is never respelled:
			// "managment" is a word the built-in vocabulary knows.
			unread := 0
			if c.Dir == "codex" {
				unread = 1
			}
			checkRespelled(t, c.Name+" "+string(mode), sc, unread)
			if mode != recall.Hybrid {
				continue
			}
			typos.N += sc["typo"].N
			typos.Hit1 += sc["typo"].Hit1
			w := want[c.Dir]
			if x := sc["exact"]; x.Hit5 != x.N || x.Hit1 < w.exact1 {
				t.Errorf("%s hybrid exact: hit@1 %d, hit@5 %d of %d, want hit@5 all and hit@1 at least %d", c.Name, x.Hit1, x.Hit5, x.N, w.exact1)
			}
			if p := sc["paraphrase"]; p.Hit5 < w.para5 {
				t.Errorf("%s hybrid paraphrase hit@5: %d of %d, want at least %d", c.Name, p.Hit5, p.N, w.para5)
			}
			if n := sc["negative"]; n.Empty < w.negEmpty {
				t.Errorf("%s hybrid negatives: %d of %d empty, want at least %d", c.Name, n.Empty, n.Negatives, w.negEmpty)
			}
			t.Logf("%s hybrid: paraphrase %s, exact %s, negatives %d/%d empty", c.Name, sc["paraphrase"], sc["exact"], sc["negative"].Empty, sc["negative"].Negatives)
		}
		e.Store.Close()
	}
	// The typos written from the harness corpora, together: measured 10
	// of 12 first (a codex path whose misspelling, "managment", is a word
	// the built-in vocabulary knows, is left as typed and found nowhere).
	if typos.N < 10 || typos.Hit1 < 10 {
		t.Errorf("harness typos: %d of %d first, want at least 10 of at least 10", typos.Hit1, typos.N)
	}
}

// checkRespelled fails t unless recall read every typo but unread with a
// word respelled, and no other query.
func checkRespelled(t *testing.T, what string, scores map[string]Score, unread int) {
	t.Helper()
	if ty := scores["typo"]; ty.Respelled != ty.N-unread {
		t.Errorf("%s: %d of %d typos respelled, want %d", what, ty.Respelled, ty.N, ty.N-unread)
	}
	if n := respelledOthers(scores); n > 0 {
		t.Errorf("%s: %d queries spelled right were respelled", what, n)
	}
}
