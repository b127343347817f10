package codex

import (
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixtureDir is where the fixtures claim to live, as discovery finds them.
const fixtureDir = "/home/u/.codex/sessions/2025/12/25/"

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldens(t, ".jsonl", 12, func(name string, data []byte) *harness.History {
		return Parse(data, harness.ParseOptions{Path: fixtureDir + name})
	})
}
