package grok

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// sessionID is the session every fixture belongs to.
const sessionID = "019b2f3e-7c41-7d2a-9f35-6a1e0c8b4d27"

// fixturePath places a fixture where Grok writes a session's updates: a
// session folder under the URL-encoded cwd folder of /home/dev/app, or of
// C:\Users\dev\app for the windows fixture. Nothing lies there, so the
// project comes from the cwd folder's name.
func fixturePath(name string) string {
	group := "%2Fhome%2Fdev%2Fapp"
	if name == "windows.jsonl" {
		group = "C%3A%5CUsers%5Cdev%5Capp"
	}
	return filepath.FromSlash("/home/dev/.grok/sessions/" + group + "/" + sessionID + "/updates.jsonl")
}

func parseFixture(name string, data []byte) *harness.History {
	return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixturePath(name)})
}

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldens(t, ".jsonl", 6, parseFixture)
}

// TestLayout: a file written with spaces after colons and commas, or its
// keys in another order, is the same file.
func TestLayout(t *testing.T) {
	harnesstest.CheckLayouts(t, ".jsonl", corpusDir+"/*.jsonl", func(name string, head []byte) error {
		return Reader{}.Sniff(fixturePath(name), head)
	}, parseFixture)
}
