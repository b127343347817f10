package goose

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// corpusDir holds a real Goose store and projects.json collected from a
// public repository (MANIFEST.tsv beside it): one CLI session with no
// message rows yet, schema_version 5.
const corpusDir = harnesstest.SharedCorpus + "goose"

// TestCorpus reads the real store, placed as Goose places it, through
// discovery and the harness seam: its one session with its project and
// start, no warning; projects.json is no history.
func TestCorpus(t *testing.T) {
	files := harnesstest.CorpusFiles(t, corpusDir, "*sessions.db")
	home := t.TempDir()
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	store := harnesstest.WriteFile(t, filepath.Join(home, ".local", "share", "goose", "sessions", StoreName), string(data))
	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, store)
	if err := (Reader{}).Sniff(store, data[:100]); err != nil {
		t.Fatal(err)
	}
	h, err := harness.ReadStore(context.Background(), Reader{}, store, harness.ParseOptions{Path: store})
	if err != nil {
		t.Fatal(err)
	}
	harnesstest.CheckInvariants(t, h, 0, 0)
	if len(h.Sessions) != 1 || len(h.Warnings) != 0 || len(h.Refused) != 0 {
		t.Fatalf("%d sessions, warnings %q, refused %q", len(h.Sessions), h.Warnings, h.Refused)
	}
	s := h.Sessions[0]
	if s.ID != "goose-20251202_1" || s.Project != "/Users/jpresley/workspace/tmp/vsl" || s.Started.Format("2006-01-02 15:04:05") != "2025-12-02 16:58:55" || s.Marker == "" {
		t.Errorf("session %s in %s started %v, marker %q", s.ID, s.Project, s.Started, s.Marker)
	}
	for _, other := range harnesstest.CorpusFiles(t, corpusDir, "*projects.json") {
		head, _ := os.ReadFile(other)
		if (Reader{}).Sniff(other, head) == nil {
			t.Errorf("%s taken for a Goose history", other)
		}
	}
}
