package gemini

import (
	"os"
	"testing"
)

// BenchmarkParseCorpus parses every corpus recording per iteration; its
// MB/s is the figure in the README.
func BenchmarkParseCorpus(b *testing.B) {
	var files [][]byte
	paths := corpusChats(b)
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
	start := cpuTime()
	for range b.N {
		for j, data := range files {
			Parse(data, Options{Path: paths[j]})
		}
	}
	reportCPURate(b, start, int64(size))
}
