package aider

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParseCorpus parses all 23 corpus histories per iteration; its
// MB/s and B/op against the corpus size are the figures in the README.
func BenchmarkParseCorpus(b *testing.B) {
	var files [][]byte
	var paths []string
	size := 0
	for _, p := range corpusFiles(b) {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		abs, _ := filepath.Abs(p)
		files, paths = append(files, data), append(paths, abs)
		size += len(data)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, data := range files {
			Parse(data, Options{Path: paths[j]})
		}
	}
}
