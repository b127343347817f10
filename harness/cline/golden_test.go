package cline

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixturePath is where a testdata fixture pretends to live, by the prefix
// of its name: sdk_ files in the SDK's sessions folder (sdk_subagent as a
// sub-agent transcript in another session's folder), cline_, roo_ and
// kilo_ files in their extension's task folders. None of these folders
// exists, so no side file is read.
func fixturePath(name string) string {
	const home = "/nonexistent/home/dev"
	storage := filepath.Join(home, ".config", "Code", "User", "globalStorage")
	switch {
	case name == "sdk_success.history":
		return filepath.Join(home, ".cline", "data", "sessions", "fixture-success-01", "fixture-success-01"+sdkSuffix)
	case name == "sdk_subagent.history":
		return filepath.Join(home, ".cline", "data", "sessions", "1784538900000_k2m9q", "explorer"+sdkSuffix)
	case strings.HasPrefix(name, "sdk_"):
		return filepath.Join(home, ".cline", "data", "sessions", "1784538900000_k2m9q", "1784538900000_k2m9q"+sdkSuffix)
	case strings.HasPrefix(name, "roo_"):
		return filepath.Join(storage, rooExt, "tasks", "0b7e9c2a-5d1f-4e3b-9a6c-2f8d1e4b7a90", legacyFile)
	case strings.HasPrefix(name, "kilo_"):
		return filepath.Join(storage, kiloExt, "tasks", "5e0f3b1c-8a2d-4c7e-b6f1-9d3a2c4e5f60", legacyFile)
	case strings.HasPrefix(name, "cline_xml"):
		return filepath.Join(storage, clineExt, "tasks", "1751364000000", legacyFile)
	default:
		return filepath.Join(storage, clineExt, "tasks", "1751364000123", legacyFile)
	}
}

func parseFixture(name string, data []byte) *harness.History {
	return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixturePath(name)})
}

func TestGolden(t *testing.T) { harnesstest.CheckGoldens(t, ".history", 8, parseFixture) }
