package amp

import (
	"encoding/json"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkParse parses an 8 MB thread, the CLI fixture's messages
// repeated.
func BenchmarkParse(b *testing.B) {
	const fixture = "cli_thread.thread"
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(harnesstest.ReadFixture(b, fixture), &doc); err != nil {
		b.Fatal(err)
	}
	var msgs, all []json.RawMessage
	if err := json.Unmarshal(doc["messages"], &msgs); err != nil {
		b.Fatal(err)
	}
	for n := 0; n < 8<<20; {
		for _, m := range msgs {
			all = append(all, m)
			n += len(m) + 1
		}
	}
	doc["messages"], _ = json.Marshal(all)
	data, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	opts := harness.ParseOptions{Path: fixturePath(fixture)}
	harnesstest.BenchParseData(b, []string{fixture}, [][]byte{data}, func(_ string, data []byte) {
		if h := Parse(data, opts); len(h.Sessions) != 1 {
			b.Fatalf("%d sessions", len(h.Sessions))
		}
	})
}
