package grok

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// longSession is the basic fixture's turns repeated to 8 MB, each copy's
// tool calls under ids of their own, as one long session holds them (no
// public session file was found).
func longSession(b *testing.B) []byte {
	data := harnesstest.ReadFixture(b, "basic.jsonl")
	long := make([]byte, 0, 8<<20+2*len(data))
	for i := 0; len(long) < 8<<20; i++ {
		long = append(long, bytes.ReplaceAll(data, []byte(`"call_`), []byte(`"call_`+strconv.Itoa(i)+`_`))...)
	}
	return long
}

// BenchmarkParse parses a long session held whole; its MB/s is the figure
// in the README.
func BenchmarkParse(b *testing.B) {
	harnesstest.BenchParseData(b, []string{"long.jsonl"}, [][]byte{longSession(b)}, func(name string, data []byte) {
		Parse(data, harness.ParseOptions{Path: fixturePath(name)})
	})
}

// BenchmarkStream parses the same session as the indexer streams it, its
// lines decoded into strings of their own.
func BenchmarkStream(b *testing.B) {
	long := longSession(b)
	harnesstest.BenchBytes(b, int64(len(long)), func() {
		if _, _, err := harness.ParseStream(Reader{}, bytes.NewReader(long), 0, 0, harness.ParseOptions{Path: fixturePath("long.jsonl")}); err != nil {
			b.Fatal(err)
		}
	})
}
