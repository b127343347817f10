package factory

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkParse parses a long session made of the basic fixture's
// messages repeated (the one public session file holds its header
// alone); its MB/s is the figure in the README.
func BenchmarkParse(b *testing.B) {
	data := harnesstest.ReadFixture(b, "basic.jsonl")
	head, body, _ := bytes.Cut(data, []byte("\n"))
	long := append(append([]byte{}, head...), '\n')
	for len(long) < 8<<20 {
		long = append(long, body...)
	}
	harnesstest.BenchParseData(b, []string{"long.jsonl"}, [][]byte{long}, func(path string, data []byte) {
		Parse(data, harness.ParseOptions{Path: fixtureDir + path})
	})
}
