package opencode

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// readFixture reads a *.sql fixture as a SQLite store and a *.txtar one as
// a JSON storage tree, through the harness seam.
func readFixture(t testing.TB, fx string) (*harness.History, string) {
	var path string
	if strings.HasSuffix(fx, ".sql") {
		path = loadSQL(t, fx)
	} else {
		path = unpackTree(t, fx)
	}
	h, err := Reader{}.Read(context.Background(), path, harness.ParseOptions{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return h, path
}

func goldenFixtures(t testing.TB) []string {
	sqls, _ := filepath.Glob("testdata/*.sql")
	trees, _ := filepath.Glob("testdata/*.txtar")
	var out []string
	for _, f := range append(sqls, trees...) {
		if filepath.Base(f) != "schema.sql" {
			out = append(out, f)
		}
	}
	if len(out) < 6 {
		t.Fatalf("found %d fixtures, want the whole set", len(out))
	}
	return out
}

// TestGolden leaves out the Marker, which for a storage tree holds the
// files' modification times (TestMarker checks it), and shows the
// temporary store's path in warnings as <store>.
func TestGolden(t *testing.T) {
	harnesstest.CheckGoldenFiles(t, goldenFixtures(t), func(t *testing.T, fx string) *harness.History {
		h, root := readFixture(t, fx)
		for i, w := range h.Warnings {
			h.Warnings[i] = strings.ReplaceAll(w, root, "<store>")
		}
		return h
	})
}
