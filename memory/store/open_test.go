package store

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
)

// TestOpenNewStoreConcurrently: processes that open a new store at the same
// moment (two 'deja index' runs, an index and a recall) all get it, none a
// "database is locked" from the other's schema creation.
func TestOpenNewStoreConcurrently(t *testing.T) {
	for round := range 20 {
		dir := filepath.Join(t.TempDir(), "store")
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := Open(context.Background(), dir)
				if err == nil {
					s.Close()
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, opener %d: %v", round, i, err)
			}
		}
	}
}
