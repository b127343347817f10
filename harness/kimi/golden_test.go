package kimi

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// The places the fixtures claim: a kimi-cli session folder under
// ~/.kimi/sessions/<md5 of /home/dev/app>, and a Kimi Code session
// folder under ~/.kimi-code/sessions/<workDirKey>.
const (
	cliSession  = "/home/dev/.kimi/sessions/0c5d8f7e2b1a4c3d9e8f7a6b5c4d3e2f/7d3c1b2a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	codeSession = "/home/dev/.kimi-code/sessions/wd_app_3f2a1b0c9d8e/session_5b0e2c7a-1f3d-4e6b-9a8c-2d4f6e8a0b1c"
)

// fixturePath places a fixture where its product writes its kind:
// cli_context as a kimi-cli context.jsonl, other cli_ fixtures as a
// kimi-cli wire.jsonl, code_subagent as a Kimi Code subagent's wire, other
// code_ fixtures as the main agent's.
func fixturePath(name string) string {
	switch {
	case name == "cli_context.jsonl":
		return filepath.FromSlash(cliSession + "/context.jsonl")
	case strings.HasPrefix(name, "cli_"):
		return filepath.FromSlash(cliSession + "/wire.jsonl")
	case name == "code_subagent.jsonl":
		return filepath.FromSlash(codeSession + "/agents/agent-0/wire.jsonl")
	}
	return filepath.FromSlash(codeSession + "/agents/main/wire.jsonl")
}

func parseFixture(name string, data []byte) *harness.History {
	return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixturePath(name)})
}

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldens(t, ".jsonl", 6, parseFixture)
}

// TestLayout: a file written with spaces after colons and commas (as
// Python's json.dumps writes kimi-cli's), or its keys in another order, is
// the same file.
func TestLayout(t *testing.T) {
	harnesstest.CheckLayouts(t, ".jsonl", corpusDir+"/*.jsonl", func(name string, head []byte) error {
		return Reader{}.Sniff(fixturePath(name), head)
	}, parseFixture)
}
