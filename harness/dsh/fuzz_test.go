package dsh

import (
	"bytes"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// FuzzParse checks that no input panics the reader, that it keeps the
// invariants every reader keeps, that turns count user messages, that a
// well-formed prompt event appended to the input is never lost, and that
// no input decodes past its bound or panics the decoder.
func FuzzParse(f *testing.F) {
	harnesstest.Seed(f, "*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fixturePath("6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f.jsonl")
		h := Parse(data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 1)
		const probe = `{"type":"user/message","seq":999999,"time":1787320263580,"data":{"role":"user","id":"p","content":[{"type":"text","text":"fuzz probe prompt"}],"source":{"kind":"user"}}}`
		whole := data[:bytes.LastIndexByte(data, '\n')+1]
		withProbe := append(bytes.Clone(whole), probe+"\n"...)
		found := false
		for _, s := range Parse(withProbe, harness.ParseOptions{Path: path}).Sessions {
			for _, m := range s.Messages {
				found = found || (m.Role == harness.User && m.Text == "fuzz probe prompt")
			}
		}
		if !found && !seededPast(whole) {
			t.Fatalf("a prompt event appended to the input was lost")
		}
		if got, _, err := harness.ReadAll(path+".zstd", bytes.NewReader(append([]byte{0x28, 0xB5, 0x2F, 0xFD}, data...)), Reader{}, harness.Limits{Decoded: 1 << 20}); err == nil && len(got) > 1<<20 {
			t.Fatalf("decoded %d bytes past the bound", len(got))
		}
	})
}

// seededPast reports input whose header makes it a fork whose appended
// events are still its parent's, read as the reader reads the lines: a
// v0 or v1 fork that inherits more than the probe's seq events, or a v2
// fork (isSeeded, no seedLength) whose end-seed marker is not read
// before the probe.
func seededPast(data []byte) bool {
	headed, cut := false, false
	var head line
	for _, raw := range bytes.Split(data, []byte("\n")) {
		var l line
		if json.Unmarshal(raw, &l) != nil {
			continue
		}
		switch {
		case l.Type == "session" && !headed:
			headed, head = true, l
		case l.Type == "session/end-seed":
			cut = true
		}
	}
	if head.SeedLength > 0 {
		return head.SeedLength > 999999
	}
	return head.IsSeeded && !cut
}
