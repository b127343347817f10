package main

import (
	"context"
	"os"
	"testing"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/internal/racebuild"
	"github.com/deja-dev/deja/memory/recall"
)

const locomoFile = "../../../shared/bench/locomo/locomo10.json"

// TestLoCoMoFile reads the published locomo10.json when it is there: 10
// conversations, 1,982 questions with D-evidence in the published
// categories, every evidence session present; and measures the first two
// conversations, where any harness fault (a transcript the reader skips,
// a label that names no session) would leave hybrid far below its
// published level.
func TestLoCoMoFile(t *testing.T) {
	if _, err := os.Stat(locomoFile); err != nil {
		t.Skipf("LoCoMo not available: %v", err)
	}
	_, hs := load(t, locomoFile, "")
	cats := map[string]int{}
	total := 0
	for _, h := range hs {
		labels := map[string]bool{}
		for _, s := range h.Sessions {
			labels[s.Label] = true
		}
		for _, q := range h.Questions {
			cats[q.Category]++
			total++
			for _, e := range q.Evidence {
				if !labels[e] {
					t.Errorf("%s %q: evidence %s names no session", h.Name, q.Text, e)
				}
			}
		}
	}
	want := map[string]int{"1 multi-hop": 282, "2 temporal": 321, "3 open-domain": 92, "4 single-hop": 841, "5 adversarial": 446}
	if len(hs) != 10 || total != 1982 {
		t.Errorf("%d conversations, %d questions: want 10, 1982", len(hs), total)
	}
	for c, n := range want {
		if cats[c] != n {
			t.Errorf("%s: %d questions, want %d", c, cats[c], n)
		}
	}
	// The measurement indexes two conversations: 45 s under the race
	// detector, 1.4 s without it. ./test.sh runs this package again in
	// its step without the race detector.
	if testing.Short() || racebuild.Enabled {
		return
	}
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	var results []Ranked
	for _, h := range hs[:2] {
		r, err := Measure(context.Background(), t.TempDir(), h, emb, []recall.Mode{recall.Hybrid}, 50, nil)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r...)
	}
	if r := Tabulate(results, false).Scores[All].Rates(); r.Hit10 < 0.8 {
		t.Errorf("hybrid on the first two conversations: %+v, want hit@10 at least 0.8", r)
	}
}
