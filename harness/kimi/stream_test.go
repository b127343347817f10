package kimi

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: a session file parsed as its lines are
// read, in chunks of any size (a line cut across none, one or many
// chunks), is the file parsed whole: every fixture, read from the file's
// start and from further on.
func TestStreamParsesWhatParseParses(t *testing.T) {
	inputs := harnesstest.ReadInputs(t, harnesstest.Fixtures(t, 6, "*.jsonl"))
	for _, offset := range []int64{0, 1000} {
		harnesstest.StreamsAsWholeAt(t, Reader{}, inputs, func(name string) harness.ParseOptions {
			return harness.ParseOptions{Path: fixturePath(name), Offset: offset, FirstOrdinal: 3}
		})
	}
}

// TestPartialLastLineWaits: a last line still being written is not read
// and the session ends before it, without a warning of its own, so the
// next index reads it whole.
func TestPartialLastLineWaits(t *testing.T) {
	data := harnesstest.ReadFixture(t, "cli_wire.jsonl")
	cut := bytes.LastIndexByte(data, '\n') + 1
	if cut == len(data) {
		t.Fatal("the fixture's last line is complete")
	}
	h := parseFixture("cli_wire.jsonl", data)
	if len(h.Warnings) != 1 || len(h.Sessions) != 2 {
		t.Fatalf("warnings %q (want the one bad line's), %d sessions", h.Warnings, len(h.Sessions))
	}
	for _, s := range h.Sessions {
		if s.End != int64(cut) {
			t.Errorf("%s ends at %d, want %d", s.ID, s.End, cut)
		}
	}
	// Once written whole, the line is a prompt of the session.
	whole := append(bytes.Clone(data), ` "payload": {"user_input": "still being written"}}}`+"\n"...)
	h = parseFixture("cli_wire.jsonl", whole)
	last := h.Sessions[0].Messages[len(h.Sessions[0].Messages)-1]
	if last.Text != "still being written" || last.Role != harness.User {
		t.Errorf("the completed last line reads %+v", last)
	}
}

// TestGrownFileRereads: a file that grew is read again from its first
// byte (every session starts there), and yields the turns it had and the
// new ones, under the same IDs.
func TestGrownFileRereads(t *testing.T) {
	data := harnesstest.ReadFixture(t, "code_main.jsonl")
	lines := bytes.SplitAfter(data, []byte("\n"))
	before := bytes.Join(lines[:10], nil)
	a := parseFixture("code_main.jsonl", before)
	b := parseFixture("code_main.jsonl", data)
	if len(a.Sessions) != 1 || len(b.Sessions) != 1 || a.Sessions[0].ID != b.Sessions[0].ID {
		t.Fatalf("sessions %+v then %+v", a.Sessions, b.Sessions)
	}
	if a.Sessions[0].End != int64(len(before)) || len(b.Sessions[0].Messages) <= len(a.Sessions[0].Messages) {
		t.Errorf("before: end %d of %d, %d messages; after: %d messages", a.Sessions[0].End, len(before), len(a.Sessions[0].Messages), len(b.Sessions[0].Messages))
	}
	for i, m := range a.Sessions[0].Messages {
		if b.Sessions[0].Messages[i] != m {
			t.Errorf("message %d was %+v, reads %+v once the file grew", i, m, b.Sessions[0].Messages[i])
		}
	}
}

// TestPiecesAddUpToTheWhole: a session file handed over in pieces of any
// size, after its Prescan as the indexer runs it, is the file parsed
// whole (harnesstest.PiecesAddUp), every fixture; a fork's copied turns
// are in no piece.
func TestPiecesAddUpToTheWhole(t *testing.T) {
	pieces := 0
	for name, data := range harnesstest.ReadInputs(t, harnesstest.Fixtures(t, 6, "*.jsonl")) {
		pieces += harnesstest.PiecesAddUp(t, name, Reader{}, data, harness.ParseOptions{Path: fixturePath(name), FirstOrdinal: 2})
	}
	if pieces == 0 {
		t.Fatal("no fixture was handed over in more than one piece")
	}
}

// TestPrescanEndsTheParse: lines written between the Prescan and the
// parse are left for the next read, so that a turn the parse hands over
// is one the Prescan saw whole.
func TestPrescanEndsTheParse(t *testing.T) {
	data := harnesstest.ReadFixture(t, "code_main.jsonl")
	lines := bytes.SplitAfter(data, []byte("\n"))
	before := bytes.Join(lines[:12], nil)
	harnesstest.PrescanEndsTheParse(t, Reader{}, before, data, harness.ParseOptions{Path: fixturePath("code_main.jsonl")})
}
