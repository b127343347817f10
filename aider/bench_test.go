package aider

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkParseCorpus parses all 23 corpus histories per iteration; its
// MB/s and B/op against the corpus size are the figures in the README.
func BenchmarkParseCorpus(b *testing.B) {
	var paths []string
	for _, p := range corpusFiles(b) {
		abs, _ := filepath.Abs(p)
		paths = append(paths, abs)
	}
	harnesstest.BenchParse(b, paths, func(path string, data []byte) {
		Parse(data, Options{Path: path})
	})
}
