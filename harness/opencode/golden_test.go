package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
)

var update = flag.Bool("update", false, "rewrite the golden files from the reader's output")

type goldenHistory struct {
	Warnings []string        `json:"warnings"`
	Sessions []goldenSession `json:"sessions"`
}

type goldenSession struct {
	ID       string          `json:"id"`
	Ordinal  int             `json:"ordinal"`
	Started  string          `json:"started"`
	Project  string          `json:"project"`
	Parent   string          `json:"parent"`
	Subagent bool            `json:"subagent"`
	Messages []goldenMessage `json:"messages"`
	Records  []goldenRecord  `json:"records"`
}

type goldenMessage struct {
	Role string `json:"role"`
	Turn int    `json:"turn"`
	Line int    `json:"line"`
	Time string `json:"time"`
	Text string `json:"text"`
}

type goldenRecord struct {
	Kind   string `json:"kind"`
	Action string `json:"action"`
	Value  string `json:"value"`
	Turn   int    `json:"turn"`
	Line   int    `json:"line"`
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// golden leaves out the Marker, which for a storage tree holds the files'
// modification times; TestMarker checks it.
func golden(h *harness.History, root string) goldenHistory {
	g := goldenHistory{Warnings: []string{}, Sessions: []goldenSession{}}
	for _, w := range h.Warnings {
		g.Warnings = append(g.Warnings, strings.ReplaceAll(w, root, "<store>"))
	}
	for _, s := range h.Sessions {
		gs := goldenSession{ID: s.ID, Ordinal: s.Ordinal, Started: stamp(s.Started), Project: s.Project,
			Parent: s.Parent, Subagent: s.Subagent, Messages: []goldenMessage{}, Records: []goldenRecord{}}
		for _, m := range s.Messages {
			gs.Messages = append(gs.Messages, goldenMessage{string(m.Role), m.Turn, m.Line, stamp(m.Time), m.Text})
		}
		for _, r := range s.Records {
			gs.Records = append(gs.Records, goldenRecord{string(r.Kind), string(r.Action), r.Value, r.Turn, r.Line})
		}
		g.Sessions = append(g.Sessions, gs)
	}
	return g
}

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

func TestGolden(t *testing.T) {
	for _, fx := range goldenFixtures(t) {
		name := strings.TrimSuffix(filepath.Base(fx), filepath.Ext(fx))
		t.Run(name, func(t *testing.T) {
			h, root := readFixture(t, fx)
			got, err := json.MarshalIndent(golden(h, root), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			file := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./harness/opencode -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("read differs from %s (run go test ./harness/opencode -update and review the diff):\n%s", file, firstDiff(string(want), string(got)))
			}
		})
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var lw, lg string
		if i < len(w) {
			lw = w[i]
		}
		if i < len(g) {
			lg = g[i]
		}
		if lw != lg {
			return "line " + strconv.Itoa(i+1) + ":\n  want " + lw + "\n  got  " + lg
		}
	}
	return ""
}
