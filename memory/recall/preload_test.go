package recall

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
)

// TestTurnFactsReadInPartsMatchOneQuery checks that the facts a recall
// reads on every core (in parts of factsPerPart or more) are those one
// query reads.
func TestTurnFactsReadInPartsMatchOneQuery(t *testing.T) {
	s, _ := memtest.Fixture(t)
	mustIndex(t, s, memtest.NewWordsEmbedder(), memtest.ManyTurns(t, t.TempDir(), 3*factsPerPart))
	ctx := context.Background()
	var ids []int64
	var strs []string
	rows, err := memtest.RawDB(t, s).QueryContext(ctx, `SELECT id FROM turns ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		strs = append(strs, strconv.FormatInt(id, 10))
	}
	rows.Close()
	if len(ids) <= 2*factsPerPart {
		t.Fatalf("%d turns: too few to be read in parts", len(ids))
	}
	whole, err := readTurnFacts(ctx, s, strs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := loadTurnFacts(ctx, s, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ids) || !reflect.DeepEqual(got, whole) {
		t.Fatalf("turnFacts read %d turns' facts, one query %d, and they differ", len(got), len(whole))
	}
	short, long := 0, 0
	for _, f := range got {
		if f.short {
			short++
		}
		if f.chars > thinChars {
			long++
		}
	}
	if short == 0 || long == 0 {
		t.Fatalf("%d short and %d long turns: the fixture must hold both", short, long)
	}
}

// TestPreloadLoadsOnceAndRecallsTheSame checks that a preloaded store
// answers as a cold one does, and that recalls arriving during the preload
// wait for it instead of building the collections again.
func TestPreloadLoadsOnceAndRecallsTheSame(t *testing.T) {
	dir := t.TempDir()
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path, memtest.ManyTurns(t, dir, 400))
	want := semanticSig(t, s, emb)
	hybridWant := hybridSig(t, s, emb)
	s.Invalidate()

	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 5)
	before := rc(s).loads.Load()
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[0] = Preload(ctx, s, emb.Identity())
	}()
	for i := 1; i < len(errs); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Recall(ctx, s, Options{Query: "tenant rows leak", Mode: Hybrid, Embedder: emb})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := rc(s).loads.Load() - before; n != 2 {
		t.Fatalf("a preload and 4 recalls at once made %d segment reads and collection builds, want 1 of each", n)
	}
	rc(s).mu.Lock()
	loaded := len(rc(s).warm)
	rc(s).mu.Unlock()
	ev, err := loadEmbedderVectors(ctx, s, emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	if loaded != len(ev.projects) || loaded < 2 {
		t.Fatalf("%d projects' collections loaded, want all %d", loaded, len(ev.projects))
	}
	if got := semanticSig(t, s, emb); got != want {
		t.Fatalf("preloaded semantic recall differs:\n%s\nwant\n%s", got, want)
	}
	if got := hybridSig(t, s, emb); got != hybridWant {
		t.Fatalf("preloaded hybrid recall differs:\n%s\nwant\n%s", got, hybridWant)
	}

	// A store with none of the embedder's vectors has nothing to load.
	if err := Preload(ctx, s, "test:other"); err != nil {
		t.Fatal(err)
	}
}

// hybridSig is what hybrid recall found, by session and turn, with the
// fused score, for queries that match by words and by meaning.
func hybridSig(t *testing.T, s *store.Store, emb *memtest.WordsEmbedder) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"tenant rows leak between customers", "container image", "how are you?", "retry upload windows"} {
		r, err := Recall(context.Background(), s, Options{Query: q, Mode: Hybrid, Limit: 20, Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s [%s %s]:", q, r.RealizedMode, r.FallbackReason)
		for _, x := range r.Results {
			fmt.Fprintf(&b, " %s/%d=%.6f", x.SessionID, x.Turn, x.Score)
		}
		b.WriteString("\n")
	}
	return memtest.SessionHash.ReplaceAllString(b.String(), "aider-P-")
}
