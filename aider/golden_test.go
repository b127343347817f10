package aider

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
)

var update = flag.Bool("update", false, "rewrite the golden files from the parser's output")

// fixturePath is where golden fixtures pretend to live, so that file
// records under it come out relative and IDs are stable.
const fixturePath = "/home/dev/proj/.aider.chat.history.md"

var fixtureZone = time.FixedZone("UTC+2", 2*60*60)

type goldenHistory struct {
	Stripped bool            `json:"whitespace_stripped"`
	Warnings []string        `json:"warnings"`
	Sessions []goldenSession `json:"sessions"`
}

type goldenSession struct {
	ID       string          `json:"id"`
	Ordinal  int             `json:"ordinal"`
	Started  *string         `json:"started"`
	Header   string          `json:"header"`
	Offset   int64           `json:"offset"`
	End      int64           `json:"end"`
	Messages []goldenMessage `json:"messages"`
	Records  []goldenRecord  `json:"records"`
}

type goldenMessage struct {
	Role string `json:"role"`
	Turn int    `json:"turn"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

type goldenRecord struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	Turn  int    `json:"turn"`
	Line  int    `json:"line"`
}

func golden(h *History) goldenHistory {
	g := goldenHistory{Stripped: h.Stripped, Warnings: append([]string{}, h.Warnings...), Sessions: []goldenSession{}}
	for _, s := range h.Sessions {
		gs := goldenSession{ID: s.ID, Ordinal: s.Ordinal, Header: s.Header, Offset: s.Offset, End: s.End,
			Messages: []goldenMessage{}, Records: []goldenRecord{}}
		if s.HasStart() {
			t := s.Started.Format(time.RFC3339)
			gs.Started = &t
		}
		for _, m := range s.Messages {
			gs.Messages = append(gs.Messages, goldenMessage{string(m.Role), m.Turn, m.Line, m.Text})
		}
		for _, r := range s.Records {
			gs.Records = append(gs.Records, goldenRecord{string(r.Kind), r.Value, r.Turn, r.Line})
		}
		g.Sessions = append(g.Sessions, gs)
	}
	return g
}

func TestGolden(t *testing.T) {
	fixtures, _ := filepath.Glob("testdata/*.md")
	if len(fixtures) < 20 {
		t.Fatalf("found %d fixtures, want the whole set", len(fixtures))
	}
	for _, fx := range fixtures {
		if filepath.Base(fx) == "README.md" {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(fx), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			h := Parse(data, Options{Path: fixturePath, Location: fixtureZone})
			got, err := json.MarshalIndent(golden(h), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			file := strings.TrimSuffix(fx, ".md") + ".golden.json"
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./aider -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("parse differs from %s (run go test ./aider -update and review the diff):\n%s", file, firstDiff(string(want), string(got)))
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
