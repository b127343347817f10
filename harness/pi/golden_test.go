package pi

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixturePath is where a testdata fixture pretends to live, by the
// prefix of its name: pi_ files in pi's sessions folder, openclaw_ files
// in an OpenClaw agent's, omp_ files in omp's. None of these folders
// exists, so no sessions.json is read.
func fixturePath(name string) string {
	const home = "/nonexistent/home/dev"
	switch {
	case strings.HasPrefix(name, "openclaw_"):
		return filepath.Join(home, ".openclaw", "agents", "main", "sessions", "7b2c3d4e-5f60-4b7c-9d8e-0f1a2b3c4d5e.jsonl")
	case strings.HasPrefix(name, "omp_"):
		return filepath.Join(home, ".omp", "agent", "sessions", "-home-dev-garden", "2026-06-01T08-00-00-000Z_8c3d4e5f-6071-4c8d-ae9f-1a2b3c4d5e6f.jsonl")
	default:
		return filepath.Join(home, ".pi", "agent", "sessions", "--home-dev-garden--", "2026-05-05T12-00-00-000Z_9d4e5f60-7182-4d9e-bfa0-2b3c4d5e6f70.jsonl")
	}
}

func parseFixture(name string, data []byte) *harness.History {
	return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixturePath(name)})
}

func TestGolden(t *testing.T) { harnesstest.CheckGoldens(t, ".jsonl", 6, parseFixture) }

// TestLayouts: a transcript written with other spacing or key order
// parses the same, and its head is still claimed.
func TestLayouts(t *testing.T) {
	harnesstest.CheckLayouts(t, ".jsonl", filepath.Join(corpusRoot, "pi", "*.jsonl"),
		func(name string, head []byte) error { return (Reader{}).Sniff(fixturePath(name), head) },
		parseFixture)
}
