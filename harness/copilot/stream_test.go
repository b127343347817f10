package copilot

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestStreamParsesWhatParseParses: an events file parsed as its lines are
// read, in chunks of any size, is the file parsed whole: every fixture,
// one opening with a byte order mark, and one whose last line is still
// being written.
func TestStreamParsesWhatParseParses(t *testing.T) {
	inputs := harnesstest.StreamInputs(t, "*.jsonl", "bad_lines_counted.jsonl", `{"type":"user.message","data":{"content":"half`)
	harnesstest.StreamsAsWholeAt(t, Reader{}, inputs, func(name string) harness.ParseOptions {
		return harness.ParseOptions{Path: fixturePath(name), FirstOrdinal: 2}
	})
}

// TestGrownFileReadAgain: a session resumed appends to its file, and the
// file read again from its start holds the first parse's turns unchanged
// and the new ones after them.
func TestGrownFileReadAgain(t *testing.T) {
	data := harnesstest.ReadFixture(t, "resumed_appends.jsonl")
	cut := bytes.Index(data, []byte(`{"type":"session.resume"`))
	if cut < 0 {
		t.Fatal("fixture has no session.resume")
	}
	opts := harness.ParseOptions{Path: fixturePath("resumed_appends.jsonl")}
	before := harness.ParseFile(Reader{}, data[:cut], opts)
	after := harness.ParseFile(Reader{}, data, opts)
	if len(before.Sessions) != 1 || len(after.Sessions) != 1 || before.Sessions[0].ID != after.Sessions[0].ID {
		t.Fatalf("sessions before %+v after %+v", before.Sessions, after.Sessions)
	}
	b, a := before.Sessions[0], after.Sessions[0]
	if b.End != int64(cut) || a.End != int64(len(data)) || a.Offset != 0 {
		t.Errorf("ranges before [%d,%d) after [%d,%d)", b.Offset, b.End, a.Offset, a.End)
	}
	if len(a.Messages) <= len(b.Messages) || !reflect.DeepEqual(a.Messages[:len(b.Messages)], b.Messages) {
		t.Errorf("messages before %+v after %+v", b.Messages, a.Messages)
	}
}

// TestPiecesAddUpToTheWhole: an events file handed over in pieces of any
// size, after its Prescan, is the file parsed whole
// (harnesstest.PiecesAddUp): every fixture, and one whose calls' outcomes
// come late, fail, list a directory or are refused, with a sub-agent.
func TestPiecesAddUpToTheWhole(t *testing.T) {
	inputs := harnesstest.ReadInputs(t, harnesstest.Fixtures(t, 7, "*.jsonl"))
	inputs["late outcomes"] = []byte(lateOutcomes(30))
	harnesstest.AllPiecesAddUp(t, Reader{}, inputs, func(name string) harness.ParseOptions {
		return harness.ParseOptions{Path: fixturePath(name), FirstOrdinal: 2}
	})
}

// lateOutcomes is an events file of n turns, each an answer that edits a
// file, views one and runs a command: every third turn's edit fails after
// the next prompt, every fourth's view lists a directory, every fifth's
// command is refused, and turn 7 runs a sub-agent.
func lateOutcomes(n int) string {
	var b strings.Builder
	ev := func(typ, data, extra string) {
		fmt.Fprintf(&b, `{"type":%q,"data":%s,"timestamp":"2026-06-01T09:00:00.000Z"%s}`+"\n", typ, data, extra)
	}
	ev("session.start", `{"sessionId":"0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60","startTime":"2026-06-01T09:00:00.000Z","context":{"cwd":"/home/dev/shop"}}`, "")
	late := ""
	for i := 0; i < n; i++ {
		ev("user.message", fmt.Sprintf(`{"content":"prompt %d about the cart"}`, i), "")
		b.WriteString(late)
		late = ""
		ev("assistant.message", fmt.Sprintf(`{"content":"answer %d"}`, i), "")
		ev("tool.execution_start", fmt.Sprintf(`{"toolCallId":"e%d","toolName":"edit","arguments":{"path":"/home/dev/shop/cart%d.go"}}`, i, i), "")
		ev("tool.execution_start", fmt.Sprintf(`{"toolCallId":"v%d","toolName":"view","arguments":{"path":"/home/dev/shop/dir%d"}}`, i, i), "")
		ev("tool.execution_start", fmt.Sprintf(`{"toolCallId":"c%d","toolName":"bash","arguments":{"command":"go test ./cart -run T%d"}}`, i, i), "")
		if i%4 == 0 {
			ev("tool.execution_complete", fmt.Sprintf(`{"toolCallId":"v%d","success":true,"toolTelemetry":{"properties":{"viewType":"directory"}}}`, i), "")
		}
		if i%5 == 0 {
			ev("permission.completed", fmt.Sprintf(`{"toolCallId":"c%d","result":{"kind":"denied-interactively-by-user"}}`, i), "")
		}
		if i%3 == 0 {
			late = fmt.Sprintf(`{"type":"tool.execution_complete","data":{"toolCallId":"e%d","success":false},"timestamp":"2026-06-01T09:00:00.000Z"}`+"\n", i)
		}
		if i == 7 {
			ev("tool.execution_start", `{"toolCallId":"task7","toolName":"task","arguments":{"prompt":"check the cart totals"}}`, "")
			ev("subagent.started", `{"toolCallId":"task7"}`, "")
			ev("assistant.message", `{"content":"the totals hold","parentToolCallId":"task7"}`, "")
		}
	}
	return b.String()
}

// TestCorpusPiecesAddUp: every real events file of the corpus beside the
// repository, handed over in pieces after its Prescan, is the file parsed
// whole.
func TestCorpusPiecesAddUp(t *testing.T) {
	for _, f := range corpusFiles(t) {
		if !strings.HasSuffix(f, ".jsonl") {
			continue
		}
		for name, d := range harnesstest.ReadInputs(t, []string{f}) {
			harnesstest.PiecesAddUp(t, name, Reader{}, d, harness.ParseOptions{Path: fixturePath("events.jsonl")})
		}
	}
}
