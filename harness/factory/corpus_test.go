package factory

import (
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "factory-droid"

func corpusFiles(t testing.TB) []string { return harnesstest.CorpusFiles(t, corpusDir, "*.jsonl") }

// TestCorpus: every real session file is claimed and parses without a
// warning. The one public file is a session droid started and left (its
// session_start line alone), which holds no session.
func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	harnesstest.CheckSniffHeads(t, files, Reader{}.Sniff)
	harnesstest.EachFile(t, files, func(t *testing.T, path string, data []byte) {
		h, _ := harnesstest.ParseChecked(t, Reader{}, path, 8192)
		if len(h.Warnings) > 0 || len(h.Refused) > 0 || len(h.Sessions) > 0 {
			t.Errorf("warnings %q, refused %q, %d sessions", h.Warnings, h.Refused, len(h.Sessions))
		}
	})
}
