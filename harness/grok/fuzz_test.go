package grok

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// FuzzParse checks that no input panics the reader, that it keeps the
// invariants every reader keeps whole and streamed, and that a
// well-formed prompt appended to the input is never lost.
func FuzzParse(f *testing.F) {
	harnesstest.Seed(f, "*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fixturePath("basic.jsonl")
		h := Parse(data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 1)
		streamed, _, err := harness.ParseStream(Reader{}, bytes.NewReader(data), 64, 0, harness.ParseOptions{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		harnesstest.CheckParse(t, streamed, len(data), Reader{}, 1)
		const probe = `{"timestamp":1784279000,"method":"session/update","params":{"sessionId":"` + sessionID + `","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"fuzz probe prompt"},"_meta":{"promptIndex":1000000}}}}`
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
