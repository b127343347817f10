package recall

import (
	"context"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestWarmSeesAnIndexRunElsewhere indexes through a second Store, as a
// 'deja index' process would, and expects the warm store's next recall to
// find the new turn and the rewritten last turn without a restart.
func TestWarmSeesAnIndexRunElsewhere(t *testing.T) {
	ctx := context.Background()
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)

	w, err := OpenWarm(ctx, s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A short query against a long turn scores under the test embedder's
	// floor; only the order matters here.
	low := DefaultTuning(emb.Identity())
	low.Floor = 0.01
	ask := func(q string) *Answer {
		t.Helper()
		r, err := w.Recall(ctx, Options{Query: q, Mode: Semantic, Embedder: emb, Limit: 3, Tuning: &low})
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

	memtest.AppendFile(t, path, memtest.ThirdSession)
	mustIndex(t, s, emb, path)
	r := ask("token bucket limiter login rate")
	if len(r.Results) == 0 || !strings.Contains(r.Results[0].User, "rate limiting") {
		t.Fatalf("after an index elsewhere, first result is %+v, want the rate limiting turn", r.Results)
	}

	// Rewriting the last turn keeps its turn ID; the answer must still change.
	memtest.AppendFile(t, path, "\nThe limiter now also guards password reset with a sliding window.\n")
	mustIndex(t, s, emb, path)
	r = ask("password reset sliding window")
	if len(r.Results) == 0 || !strings.Contains(r.Results[0].Assistant, "sliding window") {
		t.Fatalf("after the last turn grew, first result is %+v, want its new text", r.Results)
	}
	if filepath.Clean(w.Dir()) != filepath.Clean(s.Dir()) {
		t.Errorf("Dir = %s, want %s", w.Dir(), s.Dir())
	}
}

// indexedWarm indexes the fixture history and opens a warm store on it;
// the store's Close is the caller's.
func indexedWarm(t *testing.T) (*store.Store, string, *Warm, *memtest.WordsEmbedder) {
	t.Helper()
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	w, err := OpenWarm(context.Background(), s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return s, path, w, emb
}

// holdLoads holds each load behind w's recalls back until release closes
// (or w closes), counting them in loads.
func holdLoads(w *Warm, release <-chan struct{}, loads *int) {
	w.beforeLoad = func(ctx context.Context) {
		*loads++
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
}

// TestWarmAnswersOneShotUntilLoaded: a warm store's recall by meaning does
// not wait for the vectors to load, neither the first nor the first after
// an index run elsewhere: it is answered one-shot, with the results the
// loaded store gives, while the load runs behind it. Close ends a load
// still under way.
func TestWarmAnswersOneShotUntilLoaded(t *testing.T) {
	ctx := context.Background()
	s, path, w, emb := indexedWarm(t)
	release := make(chan struct{})
	var loads int
	holdLoads(w, release, &loads)
	low := DefaultTuning(emb.Identity())
	low.Floor = 0.01
	ask := func(q string, mode Mode) *Answer {
		t.Helper()
		r, err := w.Recall(ctx, Options{Query: q, Mode: mode, Embedder: emb, Limit: 3, Tuning: &low})
		if err != nil {
			t.Fatal(err)
		}
		r.Took = 0
		return r
	}
	queries := []string{"token bucket limiter login rate", "refund the order"}
	var first []*Answer
	for _, q := range queries {
		for _, mode := range []Mode{Hybrid, Semantic} {
			first = append(first, ask(q, mode))
		}
	}
	if holds(w.Store, emb.Identity()) {
		t.Fatal("the store holds the vectors while their load is held back: a recall loaded them")
	}
	close(release)
	if err := w.Preload(ctx, emb.Identity()); err != nil {
		t.Fatal(err)
	}
	if !w.isReady(emb.Identity()) || !holds(w.Store, emb.Identity()) {
		t.Fatal("Preload returned with the vectors not loaded")
	}
	ids, err := turnIDs(ctx, w.Store)
	if err != nil {
		t.Fatal(err)
	}
	turns := len(ids)
	rc(w.Store).mu.Lock()
	facts := len(rc(w.Store).turns)
	rc(w.Store).mu.Unlock()
	if facts != turns {
		t.Fatalf("Preload returned with the facts of %d turns of %d loaded", facts, turns)
	}
	i := 0
	for _, q := range queries {
		for _, mode := range []Mode{Hybrid, Semantic} {
			if got := ask(q, mode); !reflect.DeepEqual(got, first[i]) {
				t.Errorf("%s %q loaded:\n%+v\none-shot:\n%+v", mode, q, got, first[i])
			}
			i++
		}
	}

	// An index run elsewhere: the next recall is one-shot again, and
	// sees the new turn.
	holdLoads(w, make(chan struct{}), &loads)
	memtest.AppendFile(t, path, memtest.ThirdSession)
	mustIndex(t, s, emb, path)
	r := ask("token bucket limiter login rate", Semantic)
	if len(r.Results) == 0 || !strings.Contains(r.Results[0].User, "rate limiting") {
		t.Fatalf("after an index elsewhere, first result is %+v, want the rate limiting turn", r.Results)
	}
	if w.isReady(emb.Identity()) || holds(w.Store, emb.Identity()) {
		t.Fatal("the vectors count as loaded after the store changed and before their new load")
	}
	closed := make(chan error)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close waits for a load held back")
	}
}

// TestOneShotAndWarmPageCaches: a store opened for a one-shot process
// keeps a small page cache on each connection, a warm store SQLite's
// default.
func TestOneShotAndWarmPageCaches(t *testing.T) {
	ctx := context.Background()
	s, _ := memtest.Fixture(t)
	w, err := OpenWarm(ctx, s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, c := range []struct {
		name string
		db   *store.Store
		want int
	}{{"one-shot", s, -store.OneShotCacheKB}, {"warm", w.Store, -2000}} {
		var got int
		if err := c.db.Read().QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s store: cache_size %d, want %d", c.name, got, c.want)
		}
	}
}

// TestWarmScansWhileItsCollectionsAreBuilt: between reading the vectors
// and building the collections, the store holds the vectors but not the
// collections; a recall that is not to wait for the load scans the
// segment instead of building them itself. A second Preload of what is
// loaded starts no load.
func TestWarmScansWhileItsCollectionsAreBuilt(t *testing.T) {
	ctx := context.Background()
	_, _, w, emb := indexedWarm(t)
	defer w.Close()
	loads := 0
	release := make(chan struct{})
	holdLoads(w, release, &loads)
	// The load behind is held back after the vectors were read.
	if _, err := loadEmbedderVectors(ctx, w.Store, emb.Identity()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Recall(ctx, Options{Query: "token bucket limiter", Mode: Hybrid, Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	rc(w.Store).mu.Lock()
	built := len(rc(w.Store).warm)
	rc(w.Store).mu.Unlock()
	if built != 0 {
		t.Fatalf("a recall before the load built %d collections itself", built)
	}
	close(release)
	if err := w.Preload(ctx, emb.Identity()); err != nil {
		t.Fatal(err)
	}
	if err := w.Preload(ctx, emb.Identity()); err != nil {
		t.Fatal(err)
	}
	if loads != 1 {
		t.Fatalf("%d loads behind the recalls, want 1: Preload of what was loaded started another", loads)
	}
}
