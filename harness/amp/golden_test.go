package amp

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixturePath is where a testdata fixture pretends to live: the CLI's
// threads folder under the thread's own name, the legacy fixture in the
// extension's old threads3 folder under a name of its own (the file has
// no id, so its name gives the thread). None of these folders exists.
func fixturePath(name string) string {
	const home = "/nonexistent/home/dev"
	switch name {
	case "legacy_threads3.thread":
		return filepath.Join(home, ".config", "Code", "User", "globalStorage", "sourcegraph.amp", "threads3", "T-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.json")
	case "vscode_windows.thread":
		return filepath.Join(home, ".local", "share", "amp", "threads", "T-5a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b.json")
	}
	return filepath.Join(home, ".local", "share", "amp", "threads", "T-019b9d03-62e3-772f-9780-3e637f90eaec.json")
}

func parseFixture(name string, data []byte) *harness.History {
	return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixturePath(name)})
}

func TestGolden(t *testing.T) { harnesstest.CheckGoldens(t, ".thread", 4, parseFixture) }
