package claude

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkParseCorpus parses every corpus transcript per iteration; its
// MB/s is the figure in the README.
func BenchmarkParseCorpus(b *testing.B) {
	harnesstest.BenchParse(b, corpusFiles(b), func(path string, data []byte) {
		Parse(data, harness.ParseOptions{Path: path})
	})
}
