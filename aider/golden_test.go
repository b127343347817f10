package aider

import (
	"os"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixturePath is where golden fixtures pretend to live, so that file
// records under it come out relative and IDs are stable.
const fixturePath = "/home/dev/proj/.aider.chat.history.md"

var fixtureZone = time.FixedZone("UTC+2", 2*60*60)

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldenFiles(t, harnesstest.Fixtures(t, 32, "*.md"), func(t *testing.T, fx string) *History {
		data, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		return Parse(data, Options{Path: fixturePath, Location: fixtureZone})
	})
}
