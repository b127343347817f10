package harness

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineBound(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name, in, out string
		warnings      []string
	}{
		{"short lines pass", "a\nb\n", "a\nb\n", nil},
		{"a long line keeps its line end", "a\n" + long + "\nb\n" + long + "\n", "a\n\nb\n\n", []string{"2 lines longer than 64 bytes (first at line 2), skipped"}},
		{"a long last line without its end", "a\n" + long, "a\n", []string{"1 line longer than 64 bytes (first at line 2), skipped"}},
		{"a short last line without its end", "a\nb", "a\nb", nil},
		{"at the bound", strings.Repeat("y", 63) + "\n", strings.Repeat("y", 63) + "\n", nil},
	} {
		// A byte at a time below, so lines arrive in pieces.
		lb := NewLineBound(iotest.OneByteReader(strings.NewReader(tc.in)), Limits{Line: 64}, 0)
		got, err := io.ReadAll(lb)
		if err != nil || string(got) != tc.out || strings.Join(lb.Warnings(), "|") != strings.Join(tc.warnings, "|") {
			t.Errorf("%s: %q, warnings %q, err %v; want %q, %q", tc.name, got, lb.Warnings(), err, tc.out, tc.warnings)
		}
	}
}

// TestReadAllBoundsAWholeJSONRecord: a .json history is one record, so
// one over the line bound is refused before it is read.
func TestReadAllBoundsAWholeJSONRecord(t *testing.T) {
	doc := "{\n" + strings.Repeat(`  "k": "v",`+"\n", 20) + `  "end": 1` + "\n}\n"
	if _, _, err := ReadAll("/h/session-1.json", bytes.NewReader([]byte(doc)), nil, Limits{Line: 64}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a %d-byte .json over a 64-byte bound: %v, want ErrTooLarge", len(doc), err)
	}
	data, warnings, err := ReadAll("/h/session-1.jsonl", bytes.NewReader([]byte(doc)), nil, Limits{Line: 64})
	if err != nil || string(data) != doc || len(warnings) != 0 {
		t.Errorf("the same lines as JSONL: %q, %v, %v", data, warnings, err)
	}
}

// TestReadAllReadsIntoABufferOfTheHistorysSize: a history read whole is
// read into one buffer of its size, not grown to it. io.ReadAll's growth
// allocated over twice a history's size, and a 250 MB transcript peaked
// near that.
func TestReadAllReadsIntoABufferOfTheHistorysSize(t *testing.T) {
	line := `{"type":"user","message":{"role":"user","content":"why does the total drift?"}}` + "\n"
	doc := []byte(strings.Repeat(line, (16<<20)/len(line)))
	f := bytes.NewReader(doc)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	data, _, err := ReadAll("/h/s.jsonl", f, nil, Limits{})
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(data, doc) {
		t.Fatalf("ReadAll: %d bytes, %v; want the %d bytes read", len(data), err, len(doc))
	}
	// The buffer, and the LineBound's 64 KB reader with room to spare.
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(doc))+1<<20 {
		t.Errorf("reading %d bytes allocated %d", len(doc), got)
	}
}
