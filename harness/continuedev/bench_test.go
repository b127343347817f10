package continuedev

import (
	"encoding/json"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// bigSession repeats a fixture's history until the session holds about
// size bytes, pretty-printed as Continue writes it.
func bigSession(b *testing.B, fixture string, size int) []byte {
	b.Helper()
	var doc map[string]any
	if err := json.Unmarshal(harnesstest.ReadFixture(b, fixture), &doc); err != nil {
		b.Fatal(err)
	}
	entries := doc["history"].([]any)
	one, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	var all []any
	for n := 0; n < size; n += len(one) {
		all = append(all, entries...)
	}
	doc["history"] = all
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func benchParse(b *testing.B, fixture string) {
	data := bigSession(b, fixture, 8<<20)
	opts := harness.ParseOptions{Path: fixturePath(b, fixture)}
	harnesstest.BenchParseData(b, []string{fixture}, [][]byte{data}, func(_ string, data []byte) {
		if h := Parse(data, opts); len(h.Sessions) != 1 {
			b.Fatalf("%d sessions", len(h.Sessions))
		}
	})
}

// BenchmarkParseAgent parses an 8 MB session of the extensions' agent
// mode: tool calls with their states, outputs and tool messages.
func BenchmarkParseAgent(b *testing.B) { benchParse(b, "ide_agent.session") }

// BenchmarkParseChat parses an 8 MB session of the extensions' chat mode:
// editor documents, context items and prompt logs.
func BenchmarkParseChat(b *testing.B) { benchParse(b, "ide_chat.session") }

// BenchmarkParseCLI parses an 8 MB session of cn.
func BenchmarkParseCLI(b *testing.B) { benchParse(b, "cli_session.session") }

// BenchmarkCorpus parses the corpus sessions, whose prompt logs are most
// of their bytes.
func BenchmarkCorpus(b *testing.B) {
	harnesstest.BenchCorpus(b, harnesstest.CorpusFiles(b, corpusDir, "*-*-*-*-*.json"), Parse)
}
