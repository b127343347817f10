package factory

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the reader, that it keeps the
// invariants every reader keeps, and that a well-formed prompt appended
// to the input is never lost.
func FuzzParse(f *testing.F) {
	harnesstest.Seed(f, "*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fixtureDir + "7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl"
		h := Parse(data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 0)
		const probe = `{"type":"message","id":"probe","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":[{"type":"text","text":"fuzz probe prompt"}]}}`
		var whole []byte
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			whole = data[:i+1]
		}
		found := false
		for _, s := range Parse(append(bytes.Clone(whole), probe+"\n"...), harness.ParseOptions{Path: path}).Sessions {
			for _, m := range s.Messages {
				found = found || (m.Role == harness.User && m.Text == "fuzz probe prompt")
			}
		}
		if !found {
			t.Fatalf("a prompt appended to the input was lost")
		}
	})
}
