package copilot

import (
	"os"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// BenchmarkParseCorpus parses every corpus events file per iteration on
// one goroutine; its MB/s is the figure in the README.
func BenchmarkParseCorpus(b *testing.B) {
	paths := corpusFiles(b)
	var files [][]byte
	size := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		size += len(data)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for j, data := range files {
			Parse(data, harness.ParseOptions{Path: paths[j]})
		}
	}
}
