package grok

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
	inputs := harnesstest.StreamInputs(t, "*.jsonl", "basic.jsonl", `{"timestamp":1784279000,"method":"session/update","params":{"sessionId":"`+sessionID+`","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"half`)
	for _, offset := range []int64{0, 1000} {
		harnesstest.StreamsAsWholeAt(t, Reader{}, inputs, func(name string) harness.ParseOptions {
			return harness.ParseOptions{Path: fixturePath(name), Offset: offset, FirstOrdinal: 3}
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
	if len(h.Sessions) != 1 || h.Sessions[0].End != int64(cut) || len(h.Warnings) != 3 {
		t.Fatalf("sessions %+v, warnings %q; want one ending at %d and the three bad lines' warnings", h.Sessions, h.Warnings, cut)
	}
	// Written whole, the line is read on the next index, which parses the
	// file again from the session's start.
	grown := append(bytes.Clone(data), "ten\"},\"_meta\":{\"promptIndex\":2}}}}\n"...)
	h = parseFixture("damaged.jsonl", grown)
	msgs := h.Sessions[0].Messages
	if last := msgs[len(msgs)-1]; last.Text != "A line still being written" || last.Turn != 2 || h.Sessions[0].End != int64(len(grown)) {
		t.Errorf("grown file: last message %+v, end %d of %d", last, h.Sessions[0].End, len(grown))
	}
}

// TestGrownFileRereads: the indexer re-reads a grown session from its
// start (Offset, FirstOrdinal); the session keeps its ID, offsets are
// absolute, and the turns it had read the same.
func TestGrownFileRereads(t *testing.T) {
	data := harnesstest.ReadFixture(t, "basic.jsonl")
	lines := bytes.SplitAfter(data, []byte("\n"))
	before := bytes.Join(lines[:18], nil)
	a := Parse(before, harness.ParseOptions{Path: fixturePath("basic.jsonl"), Offset: 4096, FirstOrdinal: 1})
	b := Parse(data, harness.ParseOptions{Path: fixturePath("basic.jsonl"), Offset: 4096, FirstOrdinal: 1})
	if len(a.Sessions) != 1 || len(b.Sessions) != 1 || a.Sessions[0].ID != b.Sessions[0].ID {
		t.Fatalf("sessions %+v then %+v", a.Sessions, b.Sessions)
	}
	sa, sb := a.Sessions[0], b.Sessions[0]
	if sb.Offset != 4096 || sb.End != 4096+int64(len(data)) || sa.End != 4096+int64(len(before)) {
		t.Errorf("spans [%d,%d) then [%d,%d)", sa.Offset, sa.End, sb.Offset, sb.End)
	}
	if len(sb.Messages) <= len(sa.Messages) || len(sb.Records) <= len(sa.Records) {
		t.Fatalf("%d messages, %d records, then %d and %d", len(sa.Messages), len(sa.Records), len(sb.Messages), len(sb.Records))
	}
	for i, m := range sa.Messages {
		if sb.Messages[i] != m {
			t.Errorf("message %d was %+v, reads %+v once the file grew", i, m, sb.Messages[i])
		}
	}
	for i, r := range sa.Records {
		if sb.Records[i].Value != r.Value || sb.Records[i].Outcome.Status != r.Outcome.Status {
			t.Errorf("record %d was %+v, reads %+v once the file grew", i, r, sb.Records[i])
		}
	}
}
