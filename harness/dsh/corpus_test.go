package dsh

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// corpusDir is where dsh logs would sit in the shared corpus; it holds
// none yet (FORMATS-2.md §20), so the tests that read it skip.
const corpusDir = harnesstest.SharedCorpus + "dsh"

func corpusFiles(t testing.TB) []string {
	return harnesstest.CorpusFiles(t, corpusDir, "*.jsonl", "*.jsonl.zstd")
}

// TestCorpus reads every corpus log, compressed or plain, through the
// reader as the indexer does, and checks that each keeps the invariants
// and yields a session with a prompt, without warnings.
func TestCorpus(t *testing.T) {
	harnesstest.EachFile(t, corpusFiles(t), func(t *testing.T, path string, raw []byte) {
		data, dropped, err := harness.ReadAll(path, bytes.NewReader(raw), Reader{}, harness.Limits{})
		if err != nil || len(dropped) > 0 {
			t.Fatalf("read: %v, dropped %q", err, dropped)
		}
		if err := (Reader{}).Sniff(path, data[:min(len(data), 4096)]); err != nil {
			t.Fatalf("Sniff: %v", err)
		}
		h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 1)
		if len(h.Sessions) != 1 || len(h.Warnings) > 0 || len(h.Refused) > 0 {
			t.Fatalf("%d sessions, warnings %q, refused %q", len(h.Sessions), h.Warnings, h.Refused)
		}
	})
}

// corpusPresent reports whether the shared corpus holds dsh logs.
func corpusPresent() bool {
	m, _ := filepath.Glob(filepath.Join(corpusDir, "*.jsonl*"))
	return len(m) > 0
}

// readCorpus returns the decoded bytes of each corpus log.
func readCorpus(b *testing.B) ([]string, [][]byte) {
	paths := corpusFiles(b)
	var files [][]byte
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		rc, err := Reader{}.Decode(p, f)
		if err != nil {
			b.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	return paths, files
}
