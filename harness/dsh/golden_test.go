package dsh

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixtureProject is where the fixtures claim to live: a project folder
// under ~/.dsh/sessions, as discovery finds them.
const fixtureProject = "/home/dev/.dsh/sessions/--home-dev-app--"

// fixturePath places a fixture as dsh writes a log: in a session folder
// named after the fixture, as session.jsonl (a log dsh wrote with
// compression "none"; the compressed form decodes to the same bytes, see
// zstd_test.go).
func fixturePath(name string) string {
	return filepath.Join(fixtureProject, "session-"+strings.TrimSuffix(name, ".jsonl"), "session.jsonl")
}

func parseFixture(name string, data []byte) *harness.History {
	return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixturePath(name)})
}

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldens(t, ".jsonl", 6, parseFixture)
}

// TestLayout: a log written with spaces after colons and commas, or its
// keys in another order, is the same log.
func TestLayout(t *testing.T) {
	harnesstest.CheckLayouts(t, ".jsonl", corpusDir+"/*.jsonl", func(name string, head []byte) error {
		return Reader{}.Sniff(fixturePath(name), head)
	}, parseFixture)
}
