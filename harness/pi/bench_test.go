package pi

import (
	"bytes"
	"os"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// bigTranscript repeats a fixture's entries until the transcript holds
// about size bytes, its header once.
func bigTranscript(b *testing.B, fixture string, size int) []byte {
	b.Helper()
	data, err := os.ReadFile("testdata/" + fixture)
	if err != nil {
		b.Fatal(err)
	}
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
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if h := (Reader{}).Parse(data, opts); len(h.Sessions) != 1 {
			b.Fatalf("%d sessions", len(h.Sessions))
		}
	}
}

// BenchmarkParseCorpus parses the real corpus transcripts, when the corpus
// is there.
func BenchmarkParseCorpus(b *testing.B) {
	if _, err := os.Stat(corpusRoot); err != nil {
		b.Skip("no corpus at " + corpusRoot)
	}
	var files [][]byte
	size := 0
	for _, c := range corpusFiles {
		data, err := os.ReadFile(corpusRoot + "/" + c.file)
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
		for _, data := range files {
			(Reader{}).Parse(data, harness.ParseOptions{Path: fixturePath("pi_x")})
		}
	}
}
