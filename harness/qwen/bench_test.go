package qwen

import (
	"os"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// BenchmarkParseCorpus parses every corpus chat per iteration; its MB/s
// is the figure in the README.
func BenchmarkParseCorpus(b *testing.B) {
	var files [][]byte
	var paths []string
	size := 0
	for _, p := range corpusFiles(b) {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
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
