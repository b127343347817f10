package zed

import (
	"context"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// corpusDir would hold real Zed stores collected from public
// repositories (MANIFEST.tsv beside it). None has been collected (the two
// public dotfiles repositories that commit one are in no fetchable
// snapshot), so this test skips until one is; then every store must read
// whole, within the invariants, with no thread refused.
const corpusDir = harnesstest.SharedCorpus + "zed"

func TestCorpus(t *testing.T) {
	for _, path := range harnesstest.CorpusFiles(t, corpusDir, "*.db") {
		h, err := harness.ReadStore(context.Background(), Reader{}, path, harness.ParseOptions{Path: path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		harnesstest.CheckInvariants(t, &harness.History{Sessions: withoutRanges(h.Sessions)}, 0, 0)
		harnesstest.CheckValidIDs(t, h, Reader{}.ValidID)
		harnesstest.CheckTurns(t, h, IDPrefix)
		if len(h.Sessions) == 0 || len(h.Refused) > 0 {
			t.Errorf("%s: %d sessions, refused %q, warnings %q", path, len(h.Sessions), h.Refused, h.Warnings)
		}
	}
}
