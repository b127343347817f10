package claude

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixtureDir is where the fixtures claim to live: a project folder under
// ~/.claude/projects, as discovery finds them.
const fixtureDir = "/home/u/.claude/projects/-home-u-app/"

// placed are the fixtures where they claim to live.
var placed = harnesstest.Placed{Dir: fixtureDir, Parse: Parse, Sniff: Reader{}.Sniff}

// parseFixture parses a fixture as discovery would find it, in fixtureDir.
var parseFixture = placed.ParseFixture

func TestGolden(t *testing.T) { harnesstest.CheckGoldens(t, ".jsonl", 9, parseFixture) }

// TestLayout: a transcript written with spaces after colons and commas,
// or its keys in another order, is the same transcript.
func TestLayout(t *testing.T) { placed.CheckLayouts(t, ".jsonl", corpusDir+"/*.jsonl") }

// TestSniffSpacedFirstLineLongerThanTheHead: a first line longer than the
// head the indexer reads is judged by its keys before the cut, whatever
// the spacing; the sniff once looked for `"sessionId":"` byte for byte.
func TestSniffSpacedFirstLineLongerThanTheHead(t *testing.T) {
	line := `{ "type": "user", "sessionId": "11111111-2222-4333-8444-555555555555", "message": { "role": "user", "content": "` + strings.Repeat("long ", 4000) + `" } }` + "\n"
	if err := (Reader{}).Sniff(fixtureDir+"t.jsonl", []byte(line[:8192])); err != nil {
		t.Errorf("not claimed: %v", err)
	}
}
