package claude

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixtureDir is where the fixtures claim to live: a project folder under
// ~/.claude/projects, as discovery finds them.
const fixtureDir = "/home/u/.claude/projects/-home-u-app/"

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldens(t, ".jsonl", 9, func(name string, data []byte) *harness.History {
		return Parse(data, harness.ParseOptions{Path: fixtureDir + name})
	})
}
