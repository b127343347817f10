// Package harnesstest holds what every harness reader's tests share: the
// golden form of a parsed history, the golden-file check with its -update
// flag, the invariants a reader must keep on any input, and the fixture,
// corpus, fuzz, streaming, benchmark and discovery scaffolds around them.
package harnesstest

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

var update = flag.Bool("update", false, "rewrite the golden files")

// History is the golden form of a parsed history.
type History struct {
	Stripped bool      `json:"whitespace_stripped,omitempty"`
	Warnings []string  `json:"warnings"`
	Sessions []Session `json:"sessions"`
}

// Session is the golden form of a session.
type Session struct {
	ID       string    `json:"id"`
	Ordinal  int       `json:"ordinal"`
	Started  *string   `json:"started"`
	Header   string    `json:"header,omitempty"`
	Project  string    `json:"project,omitempty"`
	Parent   string    `json:"parent,omitempty"`
	Subagent bool      `json:"subagent,omitempty"`
	Offset   int64     `json:"offset"`
	End      int64     `json:"end"`
	Messages []Message `json:"messages"`
	Records  []Record  `json:"records"`
}

// Message is the golden form of a message.
type Message struct {
	Role string  `json:"role"`
	Turn int     `json:"turn"`
	Line int     `json:"line"`
	Time *string `json:"time,omitempty"`
	Text string  `json:"text"`
}

// Record is the golden form of a record.
type Record struct {
	Kind   string `json:"kind"`
	Action string `json:"action,omitempty"`
	Value  string `json:"value"`
	Turn   int    `json:"turn"`
	Line   int    `json:"line"`
	// The outcome and span, where the reader records them.
	Status  string `json:"status,omitempty"`
	Exit    *int   `json:"exit,omitempty"`
	Output  string `json:"output,omitempty"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	Whole   bool   `json:"whole,omitempty"`
	Clipped bool   `json:"clipped,omitempty"`
}

// Golden returns h in golden form.
func Golden(h *harness.History) History {
	g := History{Stripped: h.Stripped, Warnings: append([]string{}, h.Warnings...), Sessions: []Session{}}
	for _, s := range h.Sessions {
		gs := Session{ID: s.ID, Ordinal: s.Ordinal, Header: s.Header, Project: s.Project, Parent: s.Parent, Subagent: s.Subagent,
			Offset: s.Offset, End: s.End, Messages: []Message{}, Records: []Record{}}
		gs.Started = timePtr(s.Started)
		for _, m := range s.Messages {
			gs.Messages = append(gs.Messages, Message{string(m.Role), m.Turn, m.Line, timePtr(m.Time), m.Text})
		}
		for _, r := range s.Records {
			gs.Records = append(gs.Records, Record{Kind: string(r.Kind), Action: string(r.Action), Value: r.Value, Turn: r.Turn, Line: r.Line,
				Status: string(r.Outcome.Status), Exit: r.Outcome.Exit, Output: r.Outcome.Output,
				Old: r.Span.Old, New: r.Span.New, Whole: r.Span.Whole, Clipped: r.Span.Clipped})
		}
		g.Sessions = append(g.Sessions, gs)
	}
	return g
}

func timePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// CheckGoldens parses every testdata file with the extension ext through
// parse, checks that the parse keeps every reader's invariants
// (CheckInvariants) and compares it with its .golden.json beside it;
// -update rewrites them. It fails when fewer than min fixtures exist.
func CheckGoldens(t *testing.T, ext string, min int, parse func(name string, data []byte) *harness.History) {
	t.Helper()
	CheckGoldenFiles(t, Fixtures(t, min, "*"+ext), func(t *testing.T, fixture string) *harness.History {
		data, err := os.ReadFile(fixture)
		if err != nil {
			t.Fatal(err)
		}
		h := parse(filepath.Base(fixture), data)
		CheckInvariants(t, h, 0, len(data))
		return h
	})
}

// CheckGoldenFiles reads each fixture through read and compares the
// golden form of what it returns with the .golden.json named after the
// fixture (its extension dropped) beside it; -update rewrites them.
func CheckGoldenFiles(t *testing.T, fixtures []string, read func(t *testing.T, fixture string) *harness.History) {
	t.Helper()
	CheckGoldenValues(t, fixtures, func(t *testing.T, fixture string) any { return Golden(read(t, fixture)) })
}

// CheckGoldenValues compares the indented JSON of what read returns for
// each fixture with the .golden.json named after the fixture (its
// extension dropped) beside it; -update rewrites them. It is
// CheckGoldenFiles for a reader whose golden form holds more than a
// history, such as what its discovery found.
func CheckGoldenValues(t *testing.T, fixtures []string, read func(t *testing.T, fixture string) any) {
	t.Helper()
	for _, fx := range fixtures {
		base := strings.TrimSuffix(fx, filepath.Ext(fx))
		t.Run(filepath.Base(base), func(t *testing.T) {
			got, err := json.MarshalIndent(read(t, fx), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			file := base + ".golden.json"
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("parse differs from %s (run go test -update and review the diff):\n%s", file, firstDiff(string(want), string(got)))
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

// CheckInvariants fails t when a parse breaks what every reader keeps on
// any input: sessions with IDs, unique within the history; byte ranges
// inside the data; messages of a known role
// and non-empty text; records of a known kind with a value.
func CheckInvariants(t *testing.T, h *harness.History, offset int64, size int) {
	t.Helper()
	ids := map[string]bool{}
	for _, s := range h.Sessions {
		if s.ID == "" || ids[s.ID] {
			t.Fatalf("session ID %q empty or repeated", s.ID)
		}
		ids[s.ID] = true
		if s.Offset < offset || s.End < s.Offset || s.End > offset+int64(size) {
			t.Fatalf("session %s spans [%d,%d), outside the data [%d,%d)", s.ID, s.Offset, s.End, offset, offset+int64(size))
		}
		for _, m := range s.Messages {
			if (m.Role != harness.User && m.Role != harness.Assistant) || strings.TrimSpace(m.Text) == "" {
				t.Fatalf("session %s: bad message %+v", s.ID, m)
			}
		}
		for _, r := range s.Records {
			if (r.Kind != harness.FileRecord && r.Kind != harness.CommandRecord) || strings.TrimSpace(r.Value) == "" {
				t.Fatalf("session %s: bad record %+v", s.ID, r)
			}
			if err := harness.CheckOutcome(r); err != nil {
				t.Fatalf("session %s: record %q: %v", s.ID, r.Value, err)
			}
		}
	}
}

// Placed is a reader's fixtures as discovery would find them: each file
// of testdata as if it lay in Dir, parsed by Parse and claimed by Sniff.
type Placed struct {
	Dir   string
	Parse func([]byte, harness.ParseOptions) *harness.History
	Sniff func(path string, head []byte) error
}

// ParseFixture parses a fixture as if it lay in p.Dir.
func (p Placed) ParseFixture(name string, data []byte) *harness.History {
	return p.Parse(data, harness.ParseOptions{Path: p.Dir + name})
}

// CheckLayouts is CheckLayouts over the fixtures placed in p.Dir and the
// corpus files matching corpus.
func (p Placed) CheckLayouts(t *testing.T, ext, corpus string) {
	t.Helper()
	sniff := func(name string, head []byte) error { return p.Sniff(p.Dir+name, head) }
	CheckLayouts(t, ext, corpus, sniff, p.ParseFixture)
}
