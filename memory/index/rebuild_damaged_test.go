package index

import (
	"context"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/check"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRebuildKeepsForgottenSessionsForgotten: a store set aside and
// rebuilt from the same histories holds the same sessions, less the one
// forgotten before (its tombstone is carried over), and names as lost the
// sessions of a history deleted since; the old store is kept whole.
func TestRebuildKeepsForgottenSessionsForgotten(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	ctx := context.Background()
	second := memtest.SecondHistory(t)
	mustIndex(t, s, emb, path, second)
	var forgotten string
	memtest.RawDB(t, s).QueryRow(`SELECT id FROM sessions WHERE path = ? ORDER BY id LIMIT 1`, path).Scan(&forgotten)
	if err := s.Forget(ctx, []string{forgotten}, store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	var lostWant []string
	rows, _ := memtest.RawDB(t, s).Query(`SELECT id FROM sessions WHERE path = ? ORDER BY id`, second)
	for rows.Next() {
		var id string
		rows.Scan(&id)
		lostWant = append(lostWant, id)
	}
	rows.Close()
	before := sessionIDs(t, s)
	dir := s.Dir()
	s.Close()
	os.Remove(second)

	sal, err := store.SetAside(ctx, dir, store.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sal.Aside, store.DBFile)); err != nil || len(sal.Problems) > 0 {
		t.Fatalf("set aside in %s: %v, problems %q", sal.Aside, err, sal.Problems)
	}
	s, err = store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Restore(ctx, sal); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(sal.Files, path) {
		t.Errorf("the histories salvaged %q lack %s", sal.Files, path)
	}
	Index(ctx, s, Options{Paths: sal.Files, Embedder: emb})
	after := sessionIDs(t, s)
	if slices.Contains(after, forgotten) {
		t.Errorf("the forgotten session %s is back after the rebuild", forgotten)
	}
	lost, err := s.Lost(ctx, sal)
	if err != nil {
		t.Fatal(err)
	}
	var lostIDs []string
	for _, l := range lost {
		lostIDs = append(lostIDs, l.ID)
	}
	slices.Sort(lostIDs)
	if len(lostWant) == 0 || !slices.Equal(lostIDs, lostWant) {
		t.Errorf("lost %q, want the deleted history's sessions %q", lostIDs, lostWant)
	}
	if len(after)+len(lostWant) != len(before) {
		t.Errorf("after the rebuild %d sessions and %d lost, before %d", len(after), len(lostWant), len(before))
	}
	if problems, err := check.Check(ctx, s); err != nil || len(problems) > 0 {
		t.Errorf("Check of the rebuilt store = %q, %v", problems, err)
	}
}
