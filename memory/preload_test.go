package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/userfile"
)

// manyTurns writes an aider history of n turns, some short and thin, some
// long, into a new project, and returns its path.
func manyTurns(t *testing.T, dir string, n int) string {
	t.Helper()
	project := filepath.Join(dir, "many")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	topics := []string{"tenant rows leak between customers", "container image is too large", "retry the flaky upload",
		"install the program on windows", "chart labels overlap on phones", "how are you?", "thanks!"}
	var b strings.Builder
	for i := range n {
		if i%20 == 0 {
			fmt.Fprintf(&b, "\n# aider chat started at 2026-03-%02d 09:%02d:00\n\n", 1+i/20%28, i%60)
		}
		topic := topics[i%len(topics)]
		fmt.Fprintf(&b, "#### %s (case %d)\n\n", topic, i)
		answer := "Looked at it and changed the handler for " + topic + "."
		if i%9 == 0 {
			answer += strings.Repeat(" The log line repeats the same trace again.", 120)
		}
		fmt.Fprintf(&b, "%s\n\n", answer)
	}
	path := filepath.Join(project, aider.HistoryFileName)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := userfile.ResolvePath(path)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTurnFactsReadInPartsMatchOneQuery checks that the facts a recall
// reads on every core (in parts of factsPerPart or more) are those one
// query reads.
func TestTurnFactsReadInPartsMatchOneQuery(t *testing.T) {
	s, _ := fixture(t)
	mustIndex(t, s, newWordsEmbedder(), manyTurns(t, t.TempDir(), 3*factsPerPart))
	ctx := context.Background()
	var ids []int64
	var strs []string
	rows, err := rawDB(t, s).QueryContext(ctx, `SELECT id FROM turns ORDER BY id`)
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
	whole, err := s.readTurnFacts(ctx, strs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.turnFacts(ctx, ids)
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
	s, path := fixture(t)
	emb := newWordsEmbedder()
	mustIndex(t, s, emb, path, manyTurns(t, dir, 400))
	want := semanticSig(t, s, emb)
	hybridWant := hybridSig(t, s, emb)
	s.Invalidate()

	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 5)
	before := s.rc().loads.Load()
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[0] = s.Preload(ctx, emb.Identity())
	}()
	for i := 1; i < len(errs); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Recall(ctx, RecallOptions{Query: "tenant rows leak", Mode: Hybrid, Embedder: emb})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := s.rc().loads.Load() - before; n != 2 {
		t.Fatalf("a preload and 4 recalls at once made %d segment reads and collection builds, want 1 of each", n)
	}
	s.rc().mu.Lock()
	loaded := len(s.rc().warm)
	s.rc().mu.Unlock()
	ev, err := s.embedderVectors(ctx, emb.Identity())
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
	if err := s.Preload(ctx, "test:other"); err != nil {
		t.Fatal(err)
	}
}

// hybridSig is what hybrid recall found, by session and turn, with the
// fused score, for queries that match by words and by meaning.
func hybridSig(t *testing.T, s *Store, emb *wordsEmbedder) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"tenant rows leak between customers", "container image", "how are you?", "retry upload windows"} {
		r, err := s.Recall(context.Background(), RecallOptions{Query: q, Mode: Hybrid, Limit: 20, Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s [%s %s]:", q, r.RealizedMode, r.FallbackReason)
		for _, x := range r.Results {
			fmt.Fprintf(&b, " %s/%d=%.6f", x.SessionID, x.Turn, x.Score)
		}
		b.WriteString("\n")
	}
	return sessionHash.ReplaceAllString(b.String(), "aider-P-")
}
