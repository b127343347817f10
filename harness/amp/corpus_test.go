package amp

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "amp"

// TestCorpus reads every Amp thread in the shared corpus (none was
// collected when this reader was written: FORMATS-2.md §8), laid out where
// the CLI keeps threads, and checks the reader's invariants, that each is
// claimed and makes one session named by its thread, with its start.
func TestCorpus(t *testing.T) {
	files := harnesstest.CorpusFiles(t, corpusDir, "*.json")
	layout := map[string]string{}
	for _, f := range files {
		layout[filepath.Base(f)] = ".local/share/amp/threads/" + filepath.Base(f)
	}
	home := harnesstest.LayCorpus(t, corpusDir, layout)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			h, _ := harnesstest.ParseChecked(t, Reader{}, filepath.Join(home, filepath.FromSlash(layout[filepath.Base(f)])), 4096)
			if len(h.Sessions) != 1 || !h.Sessions[0].HasStart() {
				t.Fatalf("%d sessions, warnings %v", len(h.Sessions), h.Warnings)
			}
		})
	}
}
