package codex

import (
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkParseCorpus parses every corpus rollout per iteration; its
// MB/s is the figure in the README.
func BenchmarkParseCorpus(b *testing.B) { harnesstest.BenchCorpus(b, corpusFiles(b), Parse) }
