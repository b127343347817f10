package cursor

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// updating reports -update, the flag harnesstest defines to rewrite the
// golden files.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// goldenSource is one source a fixture's discovery found, as read.
type goldenSource struct {
	Path    string              `json:"path"`
	Reasons []string            `json:"reasons"`
	Refused []string            `json:"refused,omitempty"`
	History harnesstest.History `json:"history"`
}

// readHome discovers and reads every source under a fixture's home, the
// way the indexer does: through Discover, Sniff and ReadStore.
func readHome(t *testing.T, home string) []goldenSource {
	t.Helper()
	d := Discover(harness.DiscoverOptions{Home: home})
	var out []goldenSource
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
		harnesstest.CheckInvariants(t, &harness.History{Sessions: withoutRanges(h.Sessions)}, 0, 0)
		g := harnesstest.Golden(h)
		for i, w := range g.Warnings {
			g.Warnings[i] = strings.ReplaceAll(w, home, "<home>")
		}
		for i := range g.Sessions {
			g.Sessions[i].Project = strings.ReplaceAll(g.Sessions[i].Project, home, "<home>")
		}
		rel, _ := filepath.Rel(home, src.Path)
		gs := goldenSource{Path: filepath.ToSlash(rel), History: g, Refused: h.Refused}
		for _, r := range src.Reasons {
			gs.Reasons = append(gs.Reasons, strings.ReplaceAll(r.String(), home, "<home>"))
		}
		out = append(out, gs)
	}
	return out
}

// withoutRanges drops the byte ranges, which a store's sessions do not
// have, so CheckInvariants checks the rest.
func withoutRanges(ss []harness.Session) []harness.Session {
	out := append([]harness.Session(nil), ss...)
	for i := range out {
		out[i].Offset, out[i].End = 0, 0
	}
	return out
}

func TestGolden(t *testing.T) {
	fixtures, _ := filepath.Glob("testdata/*.txtar")
	if len(fixtures) < 3 {
		t.Fatalf("found %d fixtures, want the whole set", len(fixtures))
	}
	for _, fx := range fixtures {
		name := strings.TrimSuffix(filepath.Base(fx), ".txtar")
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(readHome(t, unpackHome(t, fx)), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			file := filepath.Join("testdata", name+".golden.json")
			if updating() {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./harness/cursor -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("read differs from %s (run go test ./harness/cursor -update and review the diff)", file)
			}
		})
	}
}
