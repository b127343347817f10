package main

import (
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// load reads every haystack of a benchmark file.
func load(t *testing.T, path string, format Format) (Format, []Haystack) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := NewReader(f, format)
	if err != nil {
		t.Fatal(err)
	}
	var hs []Haystack
	for {
		h, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rd.Format, hs
		}
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
}

func TestLoCoMoLoader(t *testing.T) {
	format, hs := load(t, "testdata/locomo_tiny.json", "")
	if format != LoCoMo || len(hs) != 1 {
		t.Fatalf("format %q, %d haystacks: want locomo, 1", format, len(hs))
	}
	h := hs[0]
	var labels []string
	for _, s := range h.Sessions {
		labels = append(labels, s.Label)
	}
	// Sessions in their numbers' order, not the keys' (session_10 after session_2).
	if want := []string{"D1", "D2", "D10"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("sessions %v, want %v", labels, want)
	}
	if want := time.Date(2024, 3, 18, 19, 40, 0, 0, time.UTC); !h.Sessions[1].Start.Equal(want) {
		t.Errorf("session 2 starts %v, want %v", h.Sessions[1].Start, want)
	}
	// The utterance's text alone, as the speaker's user line: no image caption.
	if got, want := h.Sessions[1].Lines[1], (Line{Text: "Ines: Rowing? That sounds exhausting but fun."}); got != want {
		t.Errorf("line %+v, want %+v", got, want)
	}
	// The question without D-evidence is left out; the rest keep their order.
	want := []Question{
		{ID: "conv-tiny#0", Category: "4 single-hop", Text: "What did Ines repot on the balcony?", Evidence: []string{"D1"}},
		{ID: "conv-tiny#1", Category: "2 temporal", Text: "When did Tomas join the rowing club?", Evidence: []string{"D2"}},
		{ID: "conv-tiny#2", Category: "1 multi-hop", Text: "Where will Tomas race while Ines's sister visits?", Evidence: []string{"D10", "D2"}},
		{ID: "conv-tiny#3", Category: "5 adversarial", Text: "What did Tomas trim with the garden shears?", Evidence: []string{"D1"}},
	}
	if !reflect.DeepEqual(h.Questions, want) {
		t.Errorf("questions\n%+v\nwant\n%+v", h.Questions, want)
	}
}

func TestLongMemEvalLoader(t *testing.T) {
	format, hs := load(t, "testdata/longmemeval_tiny.json", "")
	if format != LongMemEval || len(hs) != 2 {
		t.Fatalf("format %q, %d haystacks: want longmemeval, 2", format, len(hs))
	}
	h := hs[0]
	if len(h.Sessions) != 2 || h.Sessions[1].Label != "answer_tiny_1" {
		t.Fatalf("sessions %+v", h.Sessions)
	}
	if want := time.Date(2023, 5, 27, 18, 5, 0, 0, time.UTC); !h.Sessions[1].Start.Equal(want) {
		t.Errorf("session starts %v, want %v", h.Sessions[1].Start, want)
	}
	wantLines := []Line{
		{Text: "I just adopted a border collie puppy, what should I feed her?"},
		{Assistant: true, Text: "Puppies do well on a food made for their size, fed three times a day."},
		{Text: "How often should she go to the vet?"},
	}
	if !reflect.DeepEqual(h.Sessions[1].Lines, wantLines) {
		t.Errorf("lines %+v, want %+v", h.Sessions[1].Lines, wantLines)
	}
	want := []Question{{ID: "q_tiny_1", Category: "single-session-user", Text: "What breed is the puppy I adopted?", Evidence: []string{"answer_tiny_1"}}}
	if !reflect.DeepEqual(h.Questions, want) {
		t.Errorf("questions %+v, want %+v", h.Questions, want)
	}
	if q := hs[1].Questions[0]; !q.Abstention || q.Category != "temporal-reasoning" {
		t.Errorf("%s: abstention %v, category %q: want true, temporal-reasoning", q.ID, q.Abstention, q.Category)
	}
}

func TestLongMemEvalDates(t *testing.T) {
	for _, s := range []string{"2023/05/20 (Sat) 02:21", "2023/05/20 02:21"} {
		got, err := parseLongMemEvalDate(s)
		if err != nil || !got.Equal(time.Date(2023, 5, 20, 2, 21, 0, 0, time.UTC)) {
			t.Errorf("%q: %v, %v", s, got, err)
		}
	}
	if _, err := parseLongMemEvalDate("20 May 2023"); err == nil {
		t.Error("20 May 2023: no error")
	}
}

func TestFormatIsDetectedOrRefused(t *testing.T) {
	for _, c := range []struct{ data, err string }{
		{`[{"question_id": "x"}]`, "neither LoCoMo"},
		{`{"qa": []}`, "not a JSON list"},
		{`[1]`, "not an object"},
	} {
		_, err := NewReader(strings.NewReader(c.data), "")
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want %q", c.data, err, c.err)
		}
	}
	// A format named on the command line is taken as it is.
	rd, err := NewReader(strings.NewReader(`[{"question_id": "x"}]`), LoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err != nil {
		t.Errorf("a LoCoMo sample with no sessions: %v", err)
	}
}
