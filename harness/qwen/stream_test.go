package qwen

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: a chat parsed as its lines are read,
// in chunks of any size (a line cut across none, one or many), is the chat
// parsed whole: every fixture, read from the file's start and from
// further on.
func TestStreamParsesWhatParseParses(t *testing.T) {
	inputs := harnesstest.ReadInputs(t, harnesstest.Fixtures(t, 1, "*.jsonl"))
	for _, offset := range []int64{0, 1000} {
		harnesstest.StreamsAsWholeAt(t, Reader{}, inputs, func(name string) harness.ParseOptions {
			return harness.ParseOptions{Path: fixturePath(name), Offset: offset, FirstOrdinal: 3}
		})
	}
}

// TestPiecesAddUpToTheWhole: a chat handed over in pieces of any size is
// the chat parsed whole (harnesstest.PiecesAddUp), every fixture.
func TestPiecesAddUpToTheWhole(t *testing.T) {
	pieces := 0
	for name, data := range harnesstest.ReadInputs(t, harnesstest.Fixtures(t, 1, "*.jsonl")) {
		pieces += harnesstest.PiecesAddUp(t, name, Reader{}, data, harness.ParseOptions{Path: fixturePath(name), FirstOrdinal: 2})
	}
	if pieces == 0 {
		t.Fatal("no fixture was handed over in more than one piece")
	}
}

// TestPartialLastLineWaits: a last line still being written is not read
// and the session ends before it, without a warning, so the next index
// reads it whole.
func TestPartialLastLineWaits(t *testing.T) {
	data := harnesstest.ReadFixture(t, "sidechain.jsonl")
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
