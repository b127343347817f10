package memory

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarmSeesAnIndexRunElsewhere indexes through a second Store, as a
// 'deja index' process would, and expects the warm store's next recall to
// find the new turn and the rewritten last turn without a restart.
func TestWarmSeesAnIndexRunElsewhere(t *testing.T) {
	ctx := context.Background()
	s, path := fixture(t)
	emb := newWordsEmbedder()
	index(t, s, emb, path)

	w, err := OpenWarm(ctx, s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A short query against a long turn scores under the test embedder's
	// floor; only the order matters here.
	low := DefaultTuning(emb.Identity())
	low.Floor = 0.01
	ask := func(q string) *Recall {
		t.Helper()
		r, err := w.Recall(ctx, RecallOptions{Query: q, Mode: Semantic, Embedder: emb, Limit: 3, Tuning: &low})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, res := range ask("token bucket limiter login rate").Results {
		if strings.Contains(res.User, "rate limiting") {
			t.Fatalf("found the rate limiting turn before it was indexed")
		}
	}
	if changed, err := w.Refresh(ctx); err != nil || changed {
		t.Fatalf("Refresh with no commit = %v, %v; want false", changed, err)
	}

	appendFile(t, path, thirdSession)
	index(t, s, emb, path)
	r := ask("token bucket limiter login rate")
	if len(r.Results) == 0 || !strings.Contains(r.Results[0].User, "rate limiting") {
		t.Fatalf("after an index elsewhere, first result is %+v, want the rate limiting turn", r.Results)
	}

	// Rewriting the last turn keeps its turn ID; the answer must still change.
	appendFile(t, path, "\nThe limiter now also guards password reset with a sliding window.\n")
	index(t, s, emb, path)
	r = ask("password reset sliding window")
	if len(r.Results) == 0 || !strings.Contains(r.Results[0].Assistant, "sliding window") {
		t.Fatalf("after the last turn grew, first result is %+v, want its new text", r.Results)
	}
	if filepath.Clean(w.Dir()) != filepath.Clean(s.Dir()) {
		t.Errorf("Dir = %s, want %s", w.Dir(), s.Dir())
	}
}
