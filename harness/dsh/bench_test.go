package dsh

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// longLog is a log of n turns made of basic.jsonl's events, their seqs
// renumbered, about 7 KB a turn: the shared corpus holds no dsh log.
func longLog(t testing.TB, n int) []byte {
	fixture := harnesstest.ReadFixture(t, "basic.jsonl")
	header, events, _ := bytes.Cut(fixture, []byte("\n"))
	var b bytes.Buffer
	b.Write(header)
	b.WriteByte('\n')
	seq := 0
	for range n {
		for _, l := range bytes.SplitAfter(events, []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			b.Write(bytes.Replace(l, []byte(`"seq":`), []byte(`"seq":`+strconv.Itoa(seq)+`,"was":`), 1))
			seq++
		}
	}
	return b.Bytes()
}

// BenchmarkParse parses a 2,000-turn log (about 14 MB decoded) per
// iteration, reporting MB/s of decoded bytes.
// The corpus logs are parsed instead when the shared corpus holds some.
func BenchmarkParse(b *testing.B) {
	names, files := []string{fixturePath("bench.jsonl")}, [][]byte{longLog(b, 2000)}
	if corpusPresent() {
		names, files = readCorpus(b)
	}
	harnesstest.BenchParseData(b, names, files, func(name string, data []byte) {
		Parse(data, harness.ParseOptions{Path: name})
	})
}

// BenchmarkReadCompressed decodes the same log from its zstd frames (one
// per turn, as dsh appends) and parses it, as the indexer reads a log:
// MB/s of decoded bytes.
func BenchmarkReadCompressed(b *testing.B) {
	plain := longLog(b, 2000)
	packed := frames(b, bytes.SplitAfter(plain, []byte(`{"type":"turn/start"`)))
	path := fixturePath("bench.jsonl") + ".zstd"
	harnesstest.BenchBytes(b, int64(len(plain)), func() {
		data, _, err := harness.ReadAll(path, bytes.NewReader(packed), Reader{}, harness.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		Parse(data, harness.ParseOptions{Path: path})
	})
}

// frames compresses each batch as its own zstd frame, as dsh appends a
// batch, and concatenates them.
func frames(t testing.TB, batches [][]byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var out []byte
	for _, batch := range batches {
		out = enc.EncodeAll(batch, out)
	}
	return out
}
