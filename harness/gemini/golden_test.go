package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixtureProject is the directory fixtures pretend to have run in: their
// headers carry its hash, so file records under it come out relative.
const fixtureProject = "/home/dev/proj"

// fixtureChats is where fixtures pretend to live; subagent_* fixtures sit
// in a parent session's directory below it, as the CLI writes them.
const fixtureChats = "/home/dev/.gemini/tmp/proj/chats"

const fixtureParent = "99999999-0000-4000-8000-000000000001"

func fixturePath(name string) string {
	if strings.HasPrefix(name, "subagent_") {
		return filepath.Join(fixtureChats, fixtureParent, name)
	}
	return filepath.Join(fixtureChats, name)
}

func fixtureResolver(hash string) string {
	if hash == hashOf(fixtureProject) {
		return fixtureProject
	}
	return ""
}

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldenFiles(t, harnesstest.Fixtures(t, 12, "*.jsonl", "*.json"), func(t *testing.T, fx string) *harness.History {
		data, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		return Parse(data, Options{Path: fixturePath(filepath.Base(fx)), Project: fixtureResolver})
	})
}
