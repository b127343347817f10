package copilot

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// The fixtures are written from the documented facts, except
// engram_subagent_resume.jsonl: whole lines of softwaresalt/agent-engram
// @ddcd8c70 .copilot/session-state/8baa78ec-b203-4c7f-b1d3-c1170ae84b7d/
// events.jsonl (Apache-2.0), its lines 1, 6-24, 112-140 and 158-169 less
// the hook and warning events: a first turn, a sub-agent and a resume.

// fixtureState is where the fixtures pretend to live; each is the
// events.jsonl of a session directory named by the fixture.
const fixtureState = "/home/dev/.copilot/session-state"

// fixturePath is where a fixture pretends to be: no_start_* fixtures, which
// lack their session.start, sit in a directory named by a session id.
func fixturePath(name string) string {
	dir := strings.TrimSuffix(name, filepath.Ext(name))
	if strings.HasPrefix(name, "no_start") {
		dir = "5b0e4b1c-1d2e-4f3a-8b4c-5d6e7f8a9b0c"
	}
	return filepath.Join(fixtureState, dir, "events.jsonl")
}

func parseFixture(name string, data []byte) *harness.History {
	return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixturePath(name)})
}

func TestGolden(t *testing.T) { harnesstest.CheckGoldens(t, ".jsonl", 6, parseFixture) }
