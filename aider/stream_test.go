package aider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// streamsAsParsed checks that data streamed a line at a time, in pieces
// of any size, is the history Parse gives, from the first byte and from
// each session's offset (as an indexer re-reads an appended history).
func streamsAsParsed(t *testing.T, name string, data []byte) int {
	t.Helper()
	opts := Options{Path: fixturePath, Location: fixtureZone}
	pieces := harnesstest.PiecesAddUp(t, name, Reader{}, data, opts)
	whole := Parse(data, opts)
	for i, s := range whole.Sessions {
		if i == 0 || i > 3 || s.Offset == 0 {
			continue
		}
		from := opts
		from.Offset, from.FirstOrdinal = s.Offset, s.Ordinal
		pieces += harnesstest.PiecesAddUp(t, name+" from "+s.ID, Reader{}, data[s.Offset:], from)
	}
	return pieces
}

func TestStreamIsParse(t *testing.T) {
	pieces := 0
	files := append(harnesstest.Fixtures(t, 32, "*.md"), harnesstest.CorpusFiles(t, corpusDir, "*.md")...)
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		pieces += streamsAsParsed(t, filepath.Base(path), data)
	}
	for _, c := range []struct{ name, data string }{
		{"bom", "\xEF\xBB\xBF" + small},
		{"crlf", strings.ReplaceAll(small, "\n", "\r\n")},
		{"no final newline", strings.TrimSuffix(small, "\n")},
		{"stripped then aider's", strings.ReplaceAll(small, "  \n", "\n") + small},
		{"aider's then stripped", small + strings.ReplaceAll(small, "  \n", "\n")},
		{"last line before a header in two spaces and CR", "# aider chat started at 2024-01-01 10:00:00\n#### hi\r\nreply  \r\n" + small},
		{"text before the first header", "#### first  \n\nreply\n\n" + small},
	} {
		pieces += streamsAsParsed(t, c.name, []byte(c.data))
	}
	if pieces == 0 {
		t.Fatal("no history was handed over in pieces")
	}
}

// TestPrescanHoldsNoLine checks that Prescan reads a line far longer than
// its buffer and still sees how it ends.
func TestPrescanHoldsNoLine(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	data := "# aider chat started at 2024-01-01 10:00:00\n#### " + long + "  \n" +
		"# aider chat started at 2024-01-01 11:00:00\n#### " + long + "\n"
	got, err := Reader{}.Prescan(strings.NewReader(data))
	if err != nil || got != "001" {
		t.Fatalf("Prescan = %q, %v; want %q (the text before the first header, aider's, stripped)", got, err, "001")
	}
	streamsAsParsed(t, "long lines", []byte(data))
}

// FuzzStream checks that any input streamed in pieces is what Parse gives.
func FuzzStream(f *testing.F) {
	harnesstest.Seed(f, "*.md")
	f.Add([]byte(small))
	f.Fuzz(func(t *testing.T, data []byte) {
		harnesstest.PiecesAddUp(t, "input", Reader{}, data, Options{Path: fixturePath, Location: fixtureZone})
	})
}
