package kiro

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// unpackHome writes a txtar fixture's files under a scratch home and
// returns it: a file named *.sql is run as SQL into a SQLite store of the
// name without .sql, in WAL mode as the Kiro CLI keeps its store.
func unpackHome(t testing.TB, fixture string) string {
	t.Helper()
	return harnesstest.Unpack(t, fixture, func(p string, data []byte) {
		if db, ok := strings.CutSuffix(p, ".sql"); ok {
			harnesstest.SQLiteStore(t, db, string(data))
			return
		}
		harnesstest.WriteFile(t, p, string(data))
	})
}

// golden is what a fixture's discovery found and said, then every
// session of every source, in order, each naming its source.
type golden struct {
	Discovery []string        `json:"discovery_warnings"`
	Sources   []goldenSource  `json:"sources"`
	Sessions  []goldenSession `json:"sessions"`
}

type goldenSource struct {
	Path     string   `json:"path"`
	Reasons  []string `json:"reasons"`
	Refused  []string `json:"refused,omitempty"`
	Warnings []string `json:"warnings"`
}

type goldenSession struct {
	Source string `json:"source"`
	Marker string `json:"marker,omitempty"`
	harnesstest.Session
}

// readHome discovers and reads every source under a fixture's home, the
// way the indexer does: through Discover, Sniff and ReadStore.
func readHome(t *testing.T, home string) golden {
	t.Helper()
	d := Discover(harness.DiscoverOptions{Home: home})
	out := golden{Discovery: []string{}, Sources: []goldenSource{}, Sessions: []goldenSession{}}
	for _, w := range d.Warnings {
		out.Discovery = append(out.Discovery, strings.ReplaceAll(w, home, "<home>"))
	}
	for _, src := range d.Sources {
		head, err := os.ReadFile(src.Path)
		if err != nil {
			t.Fatal(err)
		}
		if err := (Reader{}).Sniff(src.Path, head[:min(len(head), 512)]); err != nil {
			t.Fatalf("%s: Sniff: %v", src.Path, err)
		}
		h, err := harness.ReadStore(context.Background(), Reader{}, src.Path, harness.ParseOptions{Path: src.Path, Location: time.UTC})
		if err != nil {
			t.Fatalf("%s: %v", src.Path, err)
		}
		harnesstest.CheckInvariants(t, h, 0, 0)
		harnesstest.CheckValidIDs(t, h, Reader{}.ValidID)
		rel, _ := filepath.Rel(home, src.Path)
		rel = filepath.ToSlash(rel)
		g := harnesstest.Golden(h)
		gs := goldenSource{Path: rel, Refused: h.Refused, Warnings: g.Warnings}
		for _, r := range src.Reasons {
			gs.Reasons = append(gs.Reasons, strings.ReplaceAll(r.String(), home, "<home>"))
		}
		out.Sources = append(out.Sources, gs)
		for i, s := range g.Sessions {
			marker := h.Sessions[i].Marker
			if filepath.Base(src.Path) != storeName {
				marker = "" // a file's size and time, which a checkout does not keep
			}
			out.Sessions = append(out.Sessions, goldenSession{Source: rel, Marker: marker, Session: s})
		}
	}
	return out
}

// TestGolden reads each fixture home as the indexer would and compares
// what was found and read with its golden file (go test -update
// rewrites them).
func TestGolden(t *testing.T) {
	harnesstest.CheckGoldenValues(t, harnesstest.Fixtures(t, 2, "*.txtar"), func(t *testing.T, fx string) any {
		return readHome(t, unpackHome(t, fx))
	})
}
