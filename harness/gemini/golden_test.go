package gemini

import (
	"bytes"
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

var update = flag.Bool("update", false, "rewrite the golden files from the parser's output")

// fixtureProject is the directory fixtures pretend to have run in: their
// headers carry its hash, so file records under it come out relative.
const fixtureProject = "/home/dev/proj"

// fixtureChats is where fixtures pretend to live; subagent_* fixtures sit
// in a parent session's directory below it, as the CLI writes them.
const fixtureChats = "/home/dev/.gemini/tmp/proj/chats"

const fixtureParent = "99999999-0000-4000-8000-000000000001"

func fixturePath(name string) string {
	if strings.HasPrefix(name, "subagent_") {
		return filepath.Join(fixtureChats, fixtureParent, name)
	}
	return filepath.Join(fixtureChats, name)
}

func fixtureResolver(hash string) string {
	if hash == hashOf(fixtureProject) {
		return fixtureProject
	}
	return ""
}

type goldenHistory struct {
	Warnings []string        `json:"warnings"`
	Sessions []goldenSession `json:"sessions"`
}

type goldenSession struct {
	ID       string          `json:"id"`
	Ordinal  int             `json:"ordinal"`
	Started  string          `json:"started"`
	Offset   int64           `json:"offset"`
	End      int64           `json:"end"`
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

func golden(h *harness.History) goldenHistory {
	g := goldenHistory{Warnings: append([]string{}, h.Warnings...), Sessions: []goldenSession{}}
	for _, s := range h.Sessions {
		gs := goldenSession{ID: s.ID, Ordinal: s.Ordinal, Started: stamp(s.Started), Offset: s.Offset, End: s.End,
			Project: s.Project, Parent: s.Parent, Subagent: s.Subagent,
			Messages: []goldenMessage{}, Records: []goldenRecord{}}
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

func fixtures(t testing.TB) []string {
	var out []string
	for _, pat := range []string{"testdata/*.jsonl", "testdata/*.json"} {
		m, _ := filepath.Glob(pat)
		for _, f := range m {
			if !strings.HasSuffix(f, ".golden.json") {
				out = append(out, f)
			}
		}
	}
	if len(out) < 12 {
		t.Fatalf("found %d fixtures, want the whole set", len(out))
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, fx := range fixtures(t) {
		name := filepath.Base(fx)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			h := Parse(data, Options{Path: fixturePath(name), Project: fixtureResolver})
			got, err := json.MarshalIndent(golden(h), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			file := strings.TrimSuffix(fx, filepath.Ext(fx)) + ".golden.json"
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./harness/gemini -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("parse differs from %s (run go test ./harness/gemini -update and review the diff):\n%s", file, firstDiff(string(want), string(got)))
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
