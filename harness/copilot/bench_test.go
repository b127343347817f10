package copilot

import (
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkParseCorpus parses every corpus events file per iteration on
// one goroutine; its MB/s is the figure in the README.
func BenchmarkParseCorpus(b *testing.B) { harnesstest.BenchCorpus(b, corpusFiles(b), Parse) }
