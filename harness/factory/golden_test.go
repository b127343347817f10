package factory

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixtureDir is where the fixtures claim to live: a project folder under
// ~/.factory/sessions, as discovery finds them.
const fixtureDir = "/home/dev/.factory/sessions/-home-dev-app/"

func parseFixture(name string, data []byte) *harness.History {
	return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixtureDir + name})
}

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldens(t, ".jsonl", 5, parseFixture)
}

// TestLayout: a session written with spaces after colons and commas, or
// its keys in another order, is the same session.
func TestLayout(t *testing.T) {
	harnesstest.Placed{Dir: fixtureDir, Parse: Parse, Sniff: Reader{}.Sniff}.CheckLayouts(t, ".jsonl", corpusDir+"/*.jsonl")
}
