package dsh

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestGrowingLog reads every fixture as dsh leaves it after each byte it
// appends, as the indexer would find it mid-write: a read never claims a
// byte of an unfinished line (End stops before it, so the next index
// reads it whole; a last line already complete JSON is read), reading up to End again gives the same session, and
// every prompt and record read is the one the finished log holds, at the
// same line and turn.
func TestGrowingLog(t *testing.T) {
	for _, name := range []string{"basic.jsonl", "interrupted.jsonl", "forked.jsonl"} {
		data := harnesstest.ReadFixture(t, name)
		opts := harness.ParseOptions{Path: fixturePath(name)}
		full := Parse(data, opts)
		for k := range len(data) + 1 {
			h := Parse(data[:k], opts)
			harnesstest.CheckParse(t, h, k, Reader{}, 1)
			if len(h.Sessions) == 0 {
				continue
			}
			s := h.Sessions[0]
			if s.End > 0 && data[s.End-1] != '\n' && int(s.End) != k {
				t.Fatalf("%s cut at %d: End %d is inside a line", name, k, s.End)
			}
			if again := Parse(data[:s.End], opts); !reflect.DeepEqual(again.Sessions, h.Sessions) {
				t.Fatalf("%s cut at %d: reading to End again differs", name, k)
			}
			want := full.Sessions[0]
			for _, m := range s.Messages {
				if m.Role == harness.User && !containsMessage(want.Messages, m) {
					t.Fatalf("%s cut at %d: prompt %+v is not the finished log's", name, k, m)
				}
			}
			for i, r := range s.Records {
				if w := want.Records[i]; r.Value != w.Value || r.Line != w.Line || r.Turn != w.Turn {
					t.Fatalf("%s cut at %d: record %+v, the finished log's is %+v", name, k, r, w)
				}
			}
		}
	}
}

func containsMessage(ms []harness.Message, m harness.Message) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// TestStreamThenMessage: an answer read while it streams (its deltas,
// no complete message yet) is replaced, once dsh writes the complete
// assistant/message, by that message alone, never kept twice.
func TestStreamThenMessage(t *testing.T) {
	data := harnesstest.ReadFixture(t, "basic.jsonl")
	opts := harness.ParseOptions{Path: fixturePath("basic.jsonl")}
	cut := bytes.Index(data, []byte(`{"type":"assistant/message"`))
	streaming := Parse(data[:cut], opts).Sessions[0].Messages
	if last := streaming[len(streaming)-1]; last.Role != harness.Assistant || last.Text != "Let me read the test" {
		t.Fatalf("while streaming, the last message is %+v", last)
	}
	done := Parse(data[:bytes.IndexByte(data[cut:], '\n')+cut+1], opts).Sessions[0].Messages
	if len(done) != len(streaming) || done[len(done)-1].Line != 9 {
		t.Fatalf("after the complete message: %+v", done)
	}
}

// TestReadFromOffset: a read handed the log from an offset (the indexer's
// incremental read) places the session there and names it by its folder.
func TestReadFromOffset(t *testing.T) {
	data := harnesstest.ReadFixture(t, "basic.jsonl")
	at := bytes.Index(data, []byte(`{"type":"turn/start","seq":25`))
	h := Parse(data[at:], harness.ParseOptions{Path: fixturePath("6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f.jsonl"), Offset: int64(at)})
	harnesstest.CheckInvariants(t, h, int64(at), len(data)-at)
	if len(h.Sessions) != 1 || h.Sessions[0].Offset != int64(at) || h.Sessions[0].ID != "dsh-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f" || h.Sessions[0].Messages[0].Text != "write a note about it in NOTES.md" {
		t.Fatalf("sessions %+v", h.Sessions)
	}
}
