package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
)

// TestStoreSessionWithoutProjectKeepsNone: a session a store's agent kept
// no project for (a Hermes cron run, a Kiro CLI conversation keyed by no
// directory) is stored with none, not with the store's folder, which is
// the agent's (~/.hermes), so 'deja resume' does not cd there. A session
// with a project keeps it.
func TestStoreSessionWithoutProjectKeepsNone(t *testing.T) {
	s, _ := memtest.Fixture(t)
	ctx := context.Background()
	store := writeResolved(t, filepath.Join(t.TempDir(), "state.db"), "WHOLE\nN 1 what is on my calendar\nS 2 tidy the changelog\n")
	if rep, err := Index(ctx, s, Options{Paths: []string{store}, Harnesses: harness.Registry{wholeFake{}}}); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("index: %v %q", err, rep.Problems)
	}
	all, err := digest.Sessions(ctx, s, recall.Scope{Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, si := range all {
		got[si.ID] = si.Project
	}
	if p, ok := got["whole-1"]; !ok || p != "" {
		t.Errorf("the session with no project has project %q (stored %v), want none", p, ok)
	}
	if p := got["whole-2"]; p != "/srv/shop" {
		t.Errorf("the session of /srv/shop has project %q", p)
	}
}
