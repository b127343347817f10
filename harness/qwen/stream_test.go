package qwen

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: a chat parsed as its lines are read,
// in chunks of any size (a line cut across none, one or many), is the chat
// parsed whole: every fixture, read from the file's start and from
// further on.
func TestStreamParsesWhatParseParses(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		path := fixturePath(filepath.Base(f))
		if !(Reader{}).Streams(path, data) {
			t.Fatalf("%s does not stream", f)
		}
		for _, offset := range []int64{0, 1000} {
			opts := harness.ParseOptions{Path: path, Offset: offset, FirstOrdinal: 3}
			want := harness.ParseFile(Reader{}, data, opts)
			for _, chunk := range []int{1, 100, 1 << 20} {
				got, n, err := harness.ParseStream(Reader{}, bytes.NewReader(data), chunk, 0, opts)
				if err != nil || n != int64(len(data)) {
					t.Fatalf("%s, chunk %d: read %d of %d bytes, %v", f, chunk, n, len(data), err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s at %d, chunk %d: streamed\n%+v\nwhole\n%+v", f, offset, chunk, got, want)
				}
			}
		}
	}
}

// TestPiecesAddUpToTheWhole: a chat handed over in pieces of any size is
// the chat parsed whole (harnesstest.PiecesAddUp), every fixture.
func TestPiecesAddUpToTheWhole(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	pieces := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pieces += harnesstest.PiecesAddUp(t, f, Reader{}, data, harness.ParseOptions{Path: fixturePath(filepath.Base(f)), FirstOrdinal: 2})
	}
	if pieces == 0 {
		t.Fatal("no fixture was handed over in more than one piece")
	}
}

// TestPartialLastLineWaits: a last line still being written is not read
// and the session ends before it, without a warning, so the next index
// reads it whole.
func TestPartialLastLineWaits(t *testing.T) {
	data, err := os.ReadFile("testdata/sidechain.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.LastIndexByte(data, '\n') + 1
	if cut == len(data) {
		t.Fatal("the fixture's last line is complete")
	}
	h := parseFixture("sidechain.jsonl", data)
	if len(h.Warnings) > 0 || len(h.Sessions) == 0 {
		t.Fatalf("warnings %q, %d sessions", h.Warnings, len(h.Sessions))
	}
	for _, s := range h.Sessions {
		if s.End != int64(cut) {
			t.Errorf("%s ends at %d, want %d", s.ID, s.End, cut)
		}
	}
}
