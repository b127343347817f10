package goose

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestGolden reads each fixture's data folder as discovery finds it and
// compares the sessions with its golden file; the invariants every
// reader keeps hold for each.
func TestGolden(t *testing.T) {
	harnesstest.CheckGoldenFiles(t, harnesstest.Fixtures(t, 4, "*.txtar"), func(t *testing.T, fx string) *harness.History {
		h := readDir(t, unpack(t, fx), nil)
		harnesstest.CheckInvariants(t, h, 0, 0)
		harnesstest.CheckValidIDs(t, h, Reader{}.ValidID)
		harnesstest.CheckTurns(t, h, IDPrefix)
		return h
	})
}
