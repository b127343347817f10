package claude

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// TestParsedHistorySharesNoBytesWithItsInput: the decoder reads lines
// without copying them (ZeroCopy), and a session kept a string of its
// input, its project, so that the whole of a transcript read whole stayed
// in memory as long as its parse: a 250 MB transcript peaked at 1.3 GB.
// Overwriting the input must leave the parse as it was.
func TestParsedHistorySharesNoBytesWithItsInput(t *testing.T) {
	data := []byte(`{"type":"user","uuid":"u1","sessionId":"11111111-2222-4333-8444-555555555555","cwd":"/srv/shop","timestamp":"2026-07-20T10:00:00.000Z","message":{"role":"user","content":"why does the total drift?"}}
{"type":"assistant","uuid":"a1","sessionId":"11111111-2222-4333-8444-555555555555","cwd":"/srv/shop","timestamp":"2026-07-20T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"It rounds per line."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./ledger"}},{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/srv/shop/ledger/refund.go"}}]}}
{"type":"user","uuid":"u2","sessionId":"11111111-2222-4333-8444-555555555555","isSidechain":true,"agentId":"a9f","cwd":"/srv/shop/sub","timestamp":"2026-07-20T10:00:02.000Z","message":{"role":"user","content":"look at refunds"}}
`)
	h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: "/p/11111111-2222-4333-8444-555555555555.jsonl"})
	if len(h.Sessions) != 2 || h.Sessions[0].Project != "/srv/shop" || len(h.Sessions[0].Records) != 2 {
		t.Fatalf("parsed %+v, want a session in /srv/shop with two records and a subagent's", h.Sessions)
	}
	before, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	copy(data, bytes.Repeat([]byte("#"), len(data)))
	after, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("overwriting the input changed its parse:\nbefore %s\nafter  %s", before, after)
	}
}
