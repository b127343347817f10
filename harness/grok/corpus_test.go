package grok

import (
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// corpusDir holds real Grok Build sessions as Grok lays them out
// (<cwd folder>/<session>/updates.jsonl beside summary.json), when a
// public one is found; none was (FORMATS-2.md §19), so CI skips this.
const corpusDir = harnesstest.SharedCorpus + "grok"

func corpusFiles(t testing.TB) []string {
	return harnesstest.CorpusFiles(t, corpusDir, "*/*/updates.jsonl", "*.jsonl")
}

// TestCorpus: every real session file is claimed, parses without a
// warning into one session of the shape Grok gives its sessions, and
// turns count its prompts.
func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	harnesstest.CheckSniffHeads(t, files, Reader{}.Sniff)
	harnesstest.EachFile(t, files, func(t *testing.T, path string, data []byte) {
		h, _ := harnesstest.ParseChecked(t, Reader{}, path, 8192)
		if len(h.Warnings) > 0 || len(h.Refused) > 0 || len(h.Sessions) > 1 {
			t.Errorf("warnings %q, refused %q, %d sessions", h.Warnings, h.Refused, len(h.Sessions))
		}
		harnesstest.CheckTurns(t, h, IDPrefix)
	})
}
