package zed

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// golden is what a fixture's discovery found, as read: each source with
// its reasons and warnings, then every session of every source, in
// order, each naming its source.
type golden struct {
	Sources  []goldenSource  `json:"sources"`
	Sessions []goldenSession `json:"sessions"`
}

type goldenSource struct {
	Path     string   `json:"path"`
	Reasons  []string `json:"reasons"`
	Refused  []string `json:"refused,omitempty"`
	Warnings []string `json:"warnings"`
}

type goldenSession struct {
	Source string `json:"source"`
	harnesstest.Session
}

// readHome discovers and reads every store under a fixture's home, the
// way the indexer does: through Discover, Sniff and ReadStore.
func readHome(t *testing.T, home string) golden {
	t.Helper()
	d := Discover(harness.DiscoverOptions{Home: home})
	out := golden{Sources: []goldenSource{}, Sessions: []goldenSession{}}
	for _, src := range d.Sources {
		head, err := os.ReadFile(src.Path)
		if err != nil {
			t.Fatal(err)
		}
		if err := (Reader{}).Sniff(src.Path, head[:min(len(head), 512)]); err != nil {
			t.Fatalf("%s: Sniff: %v", src.Path, err)
		}
		h, err := harness.ReadStore(context.Background(), Reader{}, src.Path, harness.ParseOptions{Path: src.Path})
		if err != nil {
			t.Fatalf("%s: %v", src.Path, err)
		}
		harnesstest.CheckInvariants(t, &harness.History{Sessions: withoutRanges(h.Sessions)}, 0, 0)
		harnesstest.CheckTurns(t, h, IDPrefix)
		rel, _ := filepath.Rel(home, src.Path)
		rel = filepath.ToSlash(rel)
		g := harnesstest.Golden(h)
		gs := goldenSource{Path: rel, Refused: h.Refused, Warnings: g.Warnings}
		for i, w := range gs.Warnings {
			gs.Warnings[i] = strings.ReplaceAll(w, home, "<home>")
		}
		for _, r := range src.Reasons {
			gs.Reasons = append(gs.Reasons, strings.ReplaceAll(r.String(), home, "<home>"))
		}
		out.Sources = append(out.Sources, gs)
		for _, s := range g.Sessions {
			s.Project = filepath.ToSlash(strings.ReplaceAll(s.Project, home, "<home>"))
			for i, r := range s.Records {
				s.Records[i].Value = strings.ReplaceAll(r.Value, home, "<home>")
			}
			out.Sessions = append(out.Sessions, goldenSession{Source: rel, Session: s})
		}
	}
	return out
}

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldenValues(t, harnesstest.Fixtures(t, 3, "*.txtar"), func(t *testing.T, fx string) any {
		return readHome(t, unpackHome(t, fx))
	})
}
