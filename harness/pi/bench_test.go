package pi

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// bigTranscript repeats a fixture's entries until the transcript holds
// about size bytes, its header once.
func bigTranscript(b *testing.B, fixture string, size int) []byte {
	b.Helper()
	data := harnesstest.ReadFixture(b, fixture)
	head, body, _ := bytes.Cut(data, []byte("\n"))
	out := append(append([]byte{}, head...), '\n')
	for len(out) < size {
		out = append(out, body...)
	}
	return out
}

// BenchmarkParse parses an 8 MB pi transcript of prompts, prose, thinking,
// tool calls and their results; its MB/s is the figure in the README.
func BenchmarkParse(b *testing.B) {
	data := bigTranscript(b, "pi_branch.jsonl", 8<<20)
	opts := harness.ParseOptions{Path: fixturePath("pi_branch.jsonl")}
	harnesstest.BenchParseData(b, []string{"pi_branch.jsonl"}, [][]byte{data}, func(_ string, data []byte) {
		if h := (Reader{}).Parse(data, opts); len(h.Sessions) != 1 {
			b.Fatalf("%d sessions", len(h.Sessions))
		}
	})
}

// BenchmarkParseCorpus parses the real corpus transcripts, when the corpus
// is there.
func BenchmarkParseCorpus(b *testing.B) {
	var paths []string
	for _, c := range corpusFiles {
		paths = append(paths, c.file)
	}
	files := harnesstest.CorpusFiles(b, corpusRoot, paths...)
	if len(files) != len(paths) {
		b.Fatalf("%d of the %d corpus transcripts found", len(files), len(paths))
	}
	harnesstest.BenchParse(b, files, func(_ string, data []byte) {
		(Reader{}).Parse(data, harness.ParseOptions{Path: fixturePath("pi_x")})
	})
}
