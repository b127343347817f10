package recall

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
)

// recordsHistory has four turns that name internal/db/pool.go, one of each
// record tier, in the reverse of the order a file lookup must rank them:
// the bare add first, then an answer that names the file again and again
// (BM25's favourite), then a question about it, then the edit.
const recordsHistory = `
# aider chat started at 2026-07-17 09:00:00

> Added internal/db/pool.go to the chat.  

#### explain the connection limits  

The limits live in internal/db/pool.go: internal/db/pool.go sets the idle count, internal/db/pool.go sets the lifetime, and internal/db/pool.go sets the maximum.

#### why does internal/db/pool.go open so many connections  

Because each request opens its own.

#### cap the connections at ten  

Done.

> Applied edit to internal/db/pool.go  
`

// TestFileLookupRanksByRecord: a file lookup ranks the turn that edited the
// file first, then the one that asked about it, then the one whose answer
// names it, then the bare add, in every mode; a query with words besides
// the path keeps the ranking's own order.
func TestFileLookupRanksByRecord(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "shop")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(project, aider.HistoryFileName)
	if err := os.WriteFile(path, []byte(recordsHistory), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(context.Background(), filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	want := []int{2, 1, 0, -1} // edited, asked, answered, added
	for _, q := range []string{"internal/db/pool.go", "pool.go", "db/pool.go"} {
		for _, mode := range []Mode{Hybrid, Semantic, Keyword} {
			r := mustRecall(t, s, emb, q, mode)
			var got []int
			for _, res := range r.Results {
				got = append(got, res.Turn)
			}
			if mode == Semantic {
				// meaning keeps only the turns above its floor, in tier order
				if len(got) == 0 || !inOrderOf(got, want) {
					t.Errorf("%s %q: turns %v, want some of %v in that order", mode, q, got, want)
				}
				continue
			}
			if !equalInts(got, want) {
				t.Errorf("%s %q: turns %v, want %v", mode, q, got, want)
			}
		}
	}
	r := mustRecall(t, s, emb, "connection limits in pool.go", Keyword)
	if len(r.Results) == 0 || r.Results[0].Turn != 0 {
		t.Errorf("mixed query: turns %v, want the ranking's order with turn 0 first", turnsOf(r))
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// inOrderOf reports whether every element of a appears in b, in b's order.
func inOrderOf(a, b []int) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] != x {
			j++
		}
		if j == len(b) {
			return false
		}
		j++
	}
	return true
}

func turnsOf(r *Answer) []int {
	var out []int
	for _, res := range r.Results {
		out = append(out, res.Turn)
	}
	return out
}
