package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/memory/recall"
)

// TestTranscriptIsReadByTheClaudeReader: every line of a session is a
// message of the reader's session, in order, with its role and its
// minute, and each user line opens a turn of its own.
func TestTranscriptIsReadByTheClaudeReader(t *testing.T) {
	_, hs := load(t, "testdata/longmemeval_tiny.json", "")
	s := hs[0].Sessions[1]
	id := sessionUUID(7)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	if err := WriteTranscript(path, id, "/bench/q", s); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := (claude.Reader{}).Sniff(path, data); err != nil {
		t.Fatalf("sniff: %v", err)
	}
	h := claude.Parse(data, harness.ParseOptions{Path: path})
	if len(h.Sessions) != 1 || len(h.Warnings) != 0 {
		t.Fatalf("%d sessions, warnings %+v: want 1, none", len(h.Sessions), h.Warnings)
	}
	sess := h.Sessions[0]
	if sess.ID != claude.SessionID(id) || !sess.Started.Equal(s.Start) {
		t.Errorf("session %s started %v: want %s, %v", sess.ID, sess.Started, claude.SessionID(id), s.Start)
	}
	if len(sess.Messages) != len(s.Lines) {
		t.Fatalf("%d messages, want %d", len(sess.Messages), len(s.Lines))
	}
	wantTurns := []int{0, 0, 1}
	for i, m := range sess.Messages {
		l := s.Lines[i]
		if m.Text != l.Text || (m.Role == harness.Assistant) != l.Assistant || m.Turn != wantTurns[i] ||
			!m.Time.Equal(s.Start.Add(time.Duration(i)*time.Minute)) {
			t.Errorf("message %d: %+v, want %+v at turn %d, minute %d", i, m, l, wantTurns[i], i)
		}
	}
}

// TestMeasureFindsTheEvidenceSession builds the tiny LoCoMo store and
// asks it: the repotted fig is in session 1, the rowing club in 2.
func TestMeasureFindsTheEvidenceSession(t *testing.T) {
	_, hs := load(t, "testdata/locomo_tiny.json", "")
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	modes := []recall.Mode{recall.Hybrid, recall.Keyword}
	got, err := Measure(context.Background(), t.TempDir(), hs[0], emb, modes, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(hs[0].Questions)*len(modes) {
		t.Fatalf("%d results, want %d", len(got), len(hs[0].Questions)*len(modes))
	}
	for _, r := range got {
		switch r.Question.ID {
		case "conv-tiny#0", "conv-tiny#1":
			if FirstRank(r.Sessions, r.Question.Evidence) != 1 {
				t.Errorf("%s %q: sessions %v, want %v first", r.Mode, r.Question.Text, r.Sessions, r.Question.Evidence)
			}
		}
		seen := map[string]bool{}
		for _, s := range r.Sessions {
			if seen[s] {
				t.Errorf("%s %q: session %s named twice in %v", r.Mode, r.Question.Text, s, r.Sessions)
			}
			seen[s] = true
		}
	}
}

// TestRunPrintsATablePerMode runs the command on the tiny LongMemEval
// file: a table per mode with a row per question type, all, and all
// without the abstention question.
func TestRunPrintsATablePerMode(t *testing.T) {
	var out bytes.Buffer
	o := Options{Data: "testdata/longmemeval_tiny.json", Modes: []recall.Mode{recall.Hybrid, recall.Semantic}, Turns: 50, Jobs: 2}
	if err := run(context.Background(), &out, o); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"(longmemeval): 2 stores, 2 questions", "\nhybrid\n", "\nsemantic\n", "\nsingle-session-user ", "\ntemporal-reasoning ", "\nall ", "\nall without abstention "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	out.Reset()
	o.JSON, o.Limit = true, 1
	if err := run(context.Background(), &out, o); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Haystacks int
		Tables    map[string]map[string]Rates
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// The puppy's session is the only other one: it ranks first.
	if r := rep.Tables["hybrid"][AllButAbstention]; rep.Haystacks != 1 || r.N != 1 || r.Hit1 != 1 {
		t.Errorf("-limit 1: %d haystacks, hybrid without abstention %+v: want 1, one hit at 1", rep.Haystacks, r)
	}
}
