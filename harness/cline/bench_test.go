package cline

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// bigHistory repeats a fixture's messages until the history holds about
// size bytes.
func bigHistory(b *testing.B, fixture string, size int) []byte {
	b.Helper()
	data := harnesstest.ReadFixture(b, fixture)
	var doc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	var msgs []json.RawMessage
	sdk := bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))
	if sdk {
		if err := json.Unmarshal(data, &doc); err != nil {
			b.Fatal(err)
		}
		msgs = doc.Messages
	} else if err := json.Unmarshal(data, &msgs); err != nil {
		b.Fatal(err)
	}
	var all []json.RawMessage
	for n := 0; n < size; {
		for _, m := range msgs {
			all = append(all, m)
			n += len(m) + 1
		}
	}
	var out []byte
	var err error
	if sdk {
		out, err = json.Marshal(map[string]any{"version": 1, "sessionId": "1784538900000_k2m9q", "messages": all})
	} else {
		out, err = json.Marshal(all)
	}
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func benchParse(b *testing.B, fixture string) {
	data := bigHistory(b, fixture, 8<<20)
	opts := harness.ParseOptions{Path: fixturePath(fixture)}
	harnesstest.BenchParseData(b, []string{fixture}, [][]byte{data}, func(_ string, data []byte) {
		if h := Parse(data, opts); len(h.Sessions) != 1 {
			b.Fatalf("%d sessions", len(h.Sessions))
		}
	})
}

// BenchmarkParseLegacy parses an 8 MB task folder history.
func BenchmarkParseLegacy(b *testing.B) { benchParse(b, "cline_task.history") }

// BenchmarkParseSDK parses an 8 MB SDK messages file.
func BenchmarkParseSDK(b *testing.B) { benchParse(b, "sdk_wrapped.history") }
