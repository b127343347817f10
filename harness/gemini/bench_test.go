package gemini

import (
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkParseCorpus parses every corpus recording per iteration; its
// MB/s is the figure in the README.
func BenchmarkParseCorpus(b *testing.B) {
	harnesstest.BenchParse(b, corpusChats(b), func(path string, data []byte) {
		Parse(data, Options{Path: path})
	})
}
