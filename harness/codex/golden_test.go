package codex

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixtureDir is where the fixtures claim to live, as discovery finds them.
const fixtureDir = "/home/u/.codex/sessions/2025/12/25/"

// placed are the fixtures where they claim to live.
var placed = harnesstest.Placed{Dir: fixtureDir, Parse: Parse, Sniff: Reader{}.Sniff}

// parseFixture parses a fixture as discovery would find it, in fixtureDir.
var parseFixture = placed.ParseFixture

func TestGolden(t *testing.T) { harnesstest.CheckGoldens(t, ".jsonl", 12, parseFixture) }

// TestLayout: a rollout written with spaces after colons and commas, or
// its keys in another order, is the same rollout. Event detection once
// matched `"type":"user_message"` byte for byte, and a rollout written
// with `": "` lost every message.
func TestLayout(t *testing.T) { placed.CheckLayouts(t, ".jsonl", corpusDir+"/*.jsonl") }

// TestSniffSpacedFirstLineLongerThanTheHead: a session_meta line longer
// than the head the indexer reads (its instructions run to kilobytes) is
// judged by its keys before the cut, whatever the spacing.
func TestSniffSpacedFirstLineLongerThanTheHead(t *testing.T) {
	long := strings.Repeat("be brief ", 2000)
	for _, line := range []string{
		`{ "timestamp": "2025-12-25T13:45:23.000Z", "type": "session_meta", "payload": { "id": "019b55c1-d022-7061-bbb9-b0c90708472b", "instructions": "` + long + `" } }`,
		`{ "id": "84b6da18-7357-4ad0-89d6-64f637ddde0d", "timestamp": "2025-08-23T16:52:59.000Z", "instructions": "` + long + `" }`,
	} {
		if err := (Reader{}).Sniff(fixtureDir+"rollout-x.jsonl", []byte(line[:8192])); err != nil {
			t.Errorf("%.60s…: not claimed: %v", line, err)
		}
	}
}
