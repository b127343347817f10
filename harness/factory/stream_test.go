package factory

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: a session parsed as its lines are read,
// in chunks of any size, is the session parsed whole: every fixture, with
// a byte order mark and with a last line still being written, read from
// the file's start and from further on.
func TestStreamParsesWhatParseParses(t *testing.T) {
	inputs := harnesstest.StreamInputs(t, "*.jsonl", "basic.jsonl", `{"type":"message","id":"late","message":{"role":"user","content":"half`)
	for _, offset := range []int64{0, 1000} {
		harnesstest.StreamsAsWholeAt(t, Reader{}, inputs, func(name string) harness.ParseOptions {
			return harness.ParseOptions{Path: fixtureDir + name, Offset: offset, FirstOrdinal: 3}
		})
	}
}

// TestPartialLastLineWaits: a last line still being written is not read
// and the session ends before it, without a warning for it, so the next
// index reads it whole.
func TestPartialLastLineWaits(t *testing.T) {
	data := harnesstest.ReadFixture(t, "damaged.jsonl")
	cut := bytes.LastIndexByte(data, '\n') + 1
	if cut == len(data) {
		t.Fatal("the fixture's last line is complete")
	}
	h := parseFixture("damaged.jsonl", data)
	if len(h.Sessions) != 1 || h.Sessions[0].End != int64(cut) {
		t.Fatalf("sessions %+v, want one ending at %d", h.Sessions, cut)
	}
	for _, m := range h.Sessions[0].Messages {
		if m.Text == "A line still being writ" {
			t.Errorf("the partial line was read")
		}
	}
	// Written whole, the line is read on the next index, which parses the
	// file again from the session's start.
	grown := append(bytes.Clone(data), "ten\"}]}}\n"...)
	h = parseFixture("damaged.jsonl", grown)
	last := h.Sessions[0].Messages[len(h.Sessions[0].Messages)-1]
	if last.Text != "A line still being written" || h.Sessions[0].End != int64(len(grown)) {
		t.Errorf("grown file: last message %q, end %d of %d", last.Text, h.Sessions[0].End, len(grown))
	}
}

// TestIncrementalKeepsTheID: the indexer re-reads a grown session from
// its start (Offset, FirstOrdinal); the session keeps its ID and offsets
// are absolute.
func TestIncrementalKeepsTheID(t *testing.T) {
	data := harnesstest.ReadFixture(t, "basic.jsonl")
	whole := parseFixture("basic.jsonl", data)
	again := Parse(data, harness.ParseOptions{Path: fixtureDir + "basic.jsonl", Offset: 4096, FirstOrdinal: 1})
	if len(whole.Sessions) != 1 || len(again.Sessions) != 1 {
		t.Fatalf("%d and %d sessions", len(whole.Sessions), len(again.Sessions))
	}
	a, b := whole.Sessions[0], again.Sessions[0]
	if a.ID != b.ID || b.Offset != 4096 || b.End != 4096+int64(len(data)) || len(a.Messages) != len(b.Messages) {
		t.Errorf("re-read session %s [%d,%d) %d messages, first %s %d messages", b.ID, b.Offset, b.End, len(b.Messages), a.ID, len(a.Messages))
	}
}
