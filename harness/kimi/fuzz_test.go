package kimi

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the reader, that it keeps the
// invariants every reader keeps, that turns count user messages, and that
// a well-formed prompt appended to the input is never lost, in the place
// of each product's main wire.
func FuzzParse(f *testing.F) {
	harnesstest.SeedEach(f, 6, func(name string, data []byte) []any {
		return []any{data, name[:4] == "code"}
	}, "*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte, code bool) {
		path, probe := fixturePath("cli_wire.jsonl"), `{"timestamp": 1773128640.5, "message": {"type": "TurnBegin", "payload": {"user_input": "fuzz probe prompt"}}}`
		if code {
			path, probe = fixturePath("code_main.jsonl"), `{"type":"turn.prompt","input":[{"type":"text","text":"fuzz probe prompt"}],"origin":{"kind":"user"},"time":1779256800000}`
		}
		h := Parse(data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 0)
		// Read as the indexer streams it, after its Prescan, in pieces.
		prescan, err := Reader{}.Prescan(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		streamed, _, err := harness.ParsePieces(Reader{}, bytes.NewReader(data), 64, 256, 0, harness.ParseOptions{Path: path, Prescanned: prescan},
			func(h *harness.History, _ int64) error { harnesstest.CheckInvariants(t, h, 0, len(data)); return nil })
		if err != nil {
			t.Fatal(err)
		}
		harnesstest.CheckInvariants(t, streamed, 0, len(data))
		harnesstest.CheckValidIDs(t, streamed, Reader{}.ValidID)
		// A prompt appended after the input's last whole line is read,
		// whatever came before it.
		var whole []byte
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			whole = data[:i+1]
		}
		found := false
		for _, s := range Parse(append(bytes.Clone(whole), probe+"\n"...), harness.ParseOptions{Path: path}).Sessions {
			for _, m := range s.Messages {
				found = found || (m.Role == harness.User && m.Text == "fuzz probe prompt" && !s.Subagent)
			}
		}
		if !found {
			t.Fatalf("a prompt appended to the input was lost")
		}
	})
}
