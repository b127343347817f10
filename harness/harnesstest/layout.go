package harnesstest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// Relayout writes each JSON line of data again as another writer might:
// a space after every colon and comma and inside every brace and bracket
// (`{ "type": "x", "n": [ 1, 2 ] }`), and, with reverse, every object's
// keys in the opposite order. The values are the same, so a reader that
// matches JSON structure, not bytes, parses the result as it parses
// data. A line that is not one whole JSON value is kept as it is, and so
// are the line ends.
func Relayout(data []byte, reverse bool) []byte {
	var out []byte
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte("\n"))
		data = rest
		body := bytes.TrimSuffix(line, []byte("\r"))
		s := jsonscan.New(body)
		var b bytes.Buffer
		relayout(s, body, &b, reverse)
		if s.Err() == nil && s.End() && len(bytes.TrimSpace(body)) > 0 {
			out = append(out, b.Bytes()...)
			out = append(out, line[len(body):]...)
		} else {
			out = append(out, line...)
		}
		if found {
			out = append(out, '\n')
		}
	}
	return out
}

// relayout writes the value at s (whose input is data) to b.
func relayout(s *jsonscan.Scanner, data []byte, b *bytes.Buffer, reverse bool) {
	switch s.Kind() {
	case '{':
		type field struct{ key, value []byte }
		var fields []field
		s.Object(func(key []byte) bool {
			var v bytes.Buffer
			relayout(s, data, &v, reverse)
			fields = append(fields, field{key, v.Bytes()})
			return true
		})
		if reverse {
			slices.Reverse(fields)
		}
		b.WriteString("{ ")
		for i, f := range fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('"')
			b.Write(f.key)
			b.WriteString(`": `)
			b.Write(f.value)
		}
		b.WriteString(" }")
	case '[':
		b.WriteString("[ ")
		n := 0
		s.Array(func() {
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			relayout(s, data, b, reverse)
		})
		b.WriteString(" ]")
	default:
		s.Kind() // past the whitespace before the value
		start := s.Pos()
		s.Skip()
		b.Write(data[start:s.Pos()])
	}
}

// CheckLayouts parses every testdata file with the extension ext, and
// each corpus file glob names, as written and as Relayout writes it (with
// and without its keys reversed), and fails when the parses differ in
// anything but where each session's bytes end, or when sniff claims a
// head (the indexer's 8 KiB, and a 1 KiB one that cuts a long first line)
// as written and not the same head relaid out.
func CheckLayouts(t *testing.T, ext, corpus string, sniff func(name string, head []byte) error, parse func(name string, data []byte) *harness.History) {
	t.Helper()
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "*"+ext))
	real, _ := filepath.Glob(corpus)
	if len(fixtures) == 0 {
		t.Fatalf("no testdata/*%s fixtures", ext)
	}
	for _, fx := range append(fixtures, real...) {
		data, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(fx)
		want := layoutFree(parse(name, data))
		for _, reverse := range []bool{false, true} {
			relaid := Relayout(data, reverse)
			got := layoutFree(parse(name, relaid))
			if got != want {
				t.Errorf("%s relaid out (keys reversed: %v) parses otherwise:\n%s", fx, reverse, firstDiff(want, got))
			}
			for _, n := range []int{8192, 1024} {
				// The spaces at most triple a line's bytes: the relaid head
				// holds what the head as written holds.
				m := min(3*n, len(relaid))
				if first := bytes.IndexByte(relaid, '\n'); reverse && (first < 0 || first >= m) {
					// The keys that say what the line is may come after the cut.
					continue
				}
				if sniff(name, data[:min(n, len(data))]) == nil && sniff(name, relaid[:m]) != nil {
					t.Errorf("%s relaid out (keys reversed: %v): its first %d bytes are not claimed", fx, reverse, n)
				}
			}
		}
	}
}

// layoutFree is a parse in golden form without the session ends, which
// move with the bytes.
func layoutFree(h *harness.History) string {
	g := Golden(h)
	for i := range g.Sessions {
		g.Sessions[i].End = 0
	}
	b, _ := json.MarshalIndent(g, "", "  ")
	return string(b)
}
