package qwen

import (
	"bytes"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the reader, that it keeps the
// invariants every reader keeps, that turns count user messages, and that
// a well-formed prompt record appended to the input is never lost.
func FuzzParse(f *testing.F) {
	harnesstest.SeedEach(f, 0, func(name string, data []byte) []any {
		return []any{data, strings.HasPrefix(name, "subagent_")}
	}, "*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte, subagent bool) {
		path := fixturePath("3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d.jsonl")
		if subagent {
			path = fixturePath("subagent_explore.jsonl")
		}
		h := Parse(data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 0)
		// A prompt record appended after the input's last whole line is
		// read, whatever came before it.
		const probe = `{"uuid":"fuzz-probe","parentUuid":null,"sessionId":"3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d","timestamp":"2026-01-01T00:00:00Z","type":"user","cwd":"/home/dev/app","message":{"role":"user","parts":[{"text":"fuzz probe prompt"}]}}`
		whole := data
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			whole = data[:i+1]
		} else {
			whole = nil
		}
		withProbe := append(bytes.Clone(whole), probe+"\n"...)
		found := false
		for _, s := range Parse(withProbe, harness.ParseOptions{Path: path}).Sessions {
			for _, m := range s.Messages {
				found = found || (m.Role == harness.User && m.Text == "fuzz probe prompt")
			}
		}
		if !found {
			t.Fatalf("a prompt record appended to the input was lost")
		}
	})
}
