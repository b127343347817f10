package qwen

import (
	"bytes"
	"os"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkParseCorpus parses every corpus chat per iteration; its MB/s
// is the figure in the README.
func BenchmarkParseCorpus(b *testing.B) {
	benchmarkParse(b, func(data []byte) []byte { return data })
}

// BenchmarkParseDecoded parses the corpus less its tool results, which
// Parse skips undecoded and which are most of its bytes: the rate of the
// conversation's own lines.
func BenchmarkParseDecoded(b *testing.B) {
	benchmarkParse(b, func(data []byte) []byte {
		var kept []byte
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if !harness.HasKey(l, "functionResponse") {
				kept = append(kept, l...)
			}
		}
		return kept
	})
}

func benchmarkParse(b *testing.B, keep func([]byte) []byte) {
	paths := corpusFiles(b)
	var files [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, keep(data))
	}
	harnesstest.BenchParseData(b, paths, files, func(path string, data []byte) {
		Parse(data, harness.ParseOptions{Path: path})
	})
}
