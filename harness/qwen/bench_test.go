package qwen

import (
	"bytes"
	"os"
	"testing"

	"github.com/deja-dev/deja/harness"
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
	var files [][]byte
	var paths []string
	size := 0
	for _, p := range corpusFiles(b) {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		data = keep(data)
		files, paths = append(files, data), append(paths, p)
		size += len(data)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, data := range files {
			Parse(data, harness.ParseOptions{Path: paths[j]})
		}
	}
}
