package continuedev

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// fixturePath is where a testdata fixture pretends to live: in testdata,
// as <name>.json beside the sessions.json index there, which gives the
// sessions it lists their start. No such file exists, so a session the
// index does not list has no start.
func fixturePath(t testing.TB, name string) string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, strings.TrimSuffix(name, ".session")+".json")
}

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldens(t, ".session", 9, func(name string, data []byte) *harness.History {
		return harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: fixturePath(t, name)})
	})
}
