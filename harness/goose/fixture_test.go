package goose

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// unpack writes a txtar fixture's files into a scratch folder and returns
// it. A file named <store>.sql becomes the SQLite store <store>, made
// from the schema.sql beside it in the archive or else testdata/schema.sql,
// then its own statements.
func unpack(t testing.TB, fixture string) string {
	t.Helper()
	scripts := map[string][]byte{}
	dir := harnesstest.Unpack(t, fixture, func(path string, data []byte) {
		if strings.HasSuffix(path, ".sql") {
			scripts[path] = data
			return
		}
		harnesstest.WriteFile(t, path, string(data))
	})
	for path, rows := range scripts {
		if filepath.Base(path) == "schema.sql" {
			continue
		}
		schema, ok := scripts[filepath.Join(filepath.Dir(path), "schema.sql")]
		if !ok {
			schema = harnesstest.ReadFixture(t, "schema.sql")
		}
		harnesstest.SQLiteStore(t, strings.TrimSuffix(path, ".sql"), string(schema), string(rows))
	}
	return dir
}

// readDir reads what discovery finds in a fixture's data folder, as the
// indexer would, the sources' sessions in one history.
func readDir(t testing.TB, root string, unchanged func(id, marker string) bool) *harness.History {
	t.Helper()
	d := Discover(harness.DiscoverOptions{Dirs: []string{filepath.Join(root, "data")}})
	if len(d.Warnings) > 0 {
		t.Fatalf("discovery warnings: %q", d.Warnings)
	}
	all := &harness.History{}
	for _, s := range d.Sources {
		head := make([]byte, 512)
		f, err := os.Open(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := f.Read(head)
		f.Close()
		if err := (Reader{}).Sniff(s.Path, head[:n]); err != nil {
			t.Fatalf("%s: %v", s.Path, err)
		}
		h, err := harness.ReadStore(context.Background(), Reader{}, s.Path, harness.ParseOptions{Path: s.Path, Unchanged: unchanged})
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, s.Path)
		for _, w := range append(h.Warnings, h.Refused...) {
			all.Warnings = append(all.Warnings, filepath.ToSlash(rel)+": "+strings.ReplaceAll(w, root, "<root>"))
		}
		all.Sessions = append(all.Sessions, h.Sessions...)
	}
	sort.Strings(all.Warnings)
	return all
}
