package kimi

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkParseCorpus parses every corpus session file per iteration;
// its MB/s is the figure in the README.
func BenchmarkParseCorpus(b *testing.B) {
	harnesstest.BenchCorpus(b, corpusFiles(b), Parse)
}

// BenchmarkParseFixtures parses the fixtures, which hold every kind of
// line both products write, per iteration.
func BenchmarkParseFixtures(b *testing.B) {
	harnesstest.BenchParse(b, harnesstest.Fixtures(b, 6, "*.jsonl"), func(name string, data []byte) {
		Parse(data, harness.ParseOptions{Path: fixturePath(filepath.Base(name))})
	})
}
