package continuedev_test

import (
	"os"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/continuedev"
	"github.com/deja-dev/deja/harness/every"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestEveryReaderLeavesContinueItsSessions: offered to every reader in
// registry order, as the indexer offers a file named on the command line,
// each session fixture is taken by Continue's reader, none before it.
func TestEveryReaderLeavesContinueItsSessions(t *testing.T) {
	for _, f := range harnesstest.Fixtures(t, 9, "*.session") {
		if strings.Contains(f, "legacy_2023") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		path := "/home/dev/.continue/sessions/" + strings.TrimSuffix(strings.TrimPrefix(f, "testdata/"), ".session") + ".json"
		r, err := every.Readers().Detect(path, data[:min(len(data), harnesstest.SniffHead)])
		if err != nil || r.Name() != continuedev.Name {
			t.Errorf("%s: detected as %v (%v), want %s", f, r, err, continuedev.Name)
		}
	}
}
