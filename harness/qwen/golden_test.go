package qwen

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixtureProject is where the fixtures claim to live: a project folder
// under ~/.qwen/projects, as discovery finds them.
const fixtureProject = "/home/dev/.qwen/projects/-home-dev-app"

// fixtureParent is the session whose subagent the subagent_* fixtures are.
const fixtureParent = "3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d"

// fixturePath places a fixture where the CLI writes its kind: a
// subagent_<name> fixture as subagents/<session>/agent-<name>-7f3c.jsonl,
// any other in chats/.
func fixturePath(name string) string {
	if agent, ok := strings.CutPrefix(name, "subagent_"); ok {
		return filepath.Join(fixtureProject, "subagents", fixtureParent, "agent-"+strings.TrimSuffix(agent, ".jsonl")+"-7f3c.jsonl")
	}
	return filepath.Join(fixtureProject, "chats", name)
}

func parseFixture(name string, data []byte) *harness.History {
	return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixturePath(name)})
}

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldens(t, ".jsonl", 5, parseFixture)
}

// TestLayout: a chat written with spaces after colons and commas, or its
// keys in another order, is the same chat.
func TestLayout(t *testing.T) {
	harnesstest.CheckLayouts(t, ".jsonl", corpusDir+"/*.jsonl", func(name string, head []byte) error {
		return Reader{}.Sniff(fixturePath(name), head)
	}, parseFixture)
}
