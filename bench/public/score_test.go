package main

import (
	"math"
	"reflect"
	"testing"
)

func TestFirstRankAndRecall(t *testing.T) {
	ranked := []string{"D4", "D2", "D9", "D1", "D7", "D3"}
	for _, c := range []struct {
		evidence []string
		rank     int
		recall5  float64
		recall10 float64
	}{
		{[]string{"D4"}, 1, 1, 1},
		{[]string{"D9", "D3"}, 3, 0.5, 1},
		{[]string{"D3", "D8", "D5", "D1"}, 4, 0.25, 0.5},
		{[]string{"D8"}, 0, 0, 0},
		{nil, 0, 0, 0},
	} {
		if r := FirstRank(ranked, c.evidence); r != c.rank {
			t.Errorf("%v: rank %d, want %d", c.evidence, r, c.rank)
		}
		if r := RecallAt(ranked, c.evidence, 5); r != c.recall5 {
			t.Errorf("%v: recall@5 %v, want %v", c.evidence, r, c.recall5)
		}
		if r := RecallAt(ranked, c.evidence, 10); r != c.recall10 {
			t.Errorf("%v: recall@10 %v, want %v", c.evidence, r, c.recall10)
		}
	}
}

func TestScoreRates(t *testing.T) {
	var s Score
	s.Add([]string{"a", "b"}, []string{"a"})                          // rank 1
	s.Add([]string{"a", "b", "c", "d", "e", "f"}, []string{"f", "z"}) // rank 6, half its evidence
	s.Add([]string{"a", "b", "c"}, []string{"c", "b"})                // rank 2, all of it
	s.Add(nil, []string{"a"})                                         // nothing named
	got := s.Rates()
	want := Rates{N: 4, Hit1: 0.25, Hit5: 0.5, Hit10: 0.75, Recall5: 0.5, Recall10: 0.625, MRR: (1 + 1.0/6 + 0.5) / 4, Empty: 1}
	if math.Abs(got.MRR-want.MRR) > 1e-12 {
		t.Errorf("MRR %v, want %v", got.MRR, want.MRR)
	}
	got.MRR = want.MRR
	if got != want {
		t.Errorf("rates %+v, want %+v", got, want)
	}
}

func TestTabulateRows(t *testing.T) {
	results := []Ranked{
		{Question: Question{Category: "temporal-reasoning", Evidence: []string{"s1"}}, Sessions: []string{"s1"}},
		{Question: Question{Category: "multi-session", Evidence: []string{"s2"}, Abstention: true}, Sessions: []string{"s1"}},
		{Question: Question{Category: "multi-session", Evidence: []string{"s3"}}, Sessions: []string{"s2", "s3"}},
	}
	tab := Tabulate(results, true)
	if want := []string{"multi-session", "temporal-reasoning", All, AllButAbstention}; !reflect.DeepEqual(tab.Rows, want) {
		t.Fatalf("rows %v, want %v", tab.Rows, want)
	}
	for row, want := range map[string]Score{
		"multi-session":  {N: 2, Hit5: 1, Hit10: 1, Recall5: 1, Recall10: 1, ReciprocalRank: 0.5},
		All:              {N: 3, Hit1: 1, Hit5: 2, Hit10: 2, Recall5: 2, Recall10: 2, ReciprocalRank: 1.5},
		AllButAbstention: {N: 2, Hit1: 1, Hit5: 2, Hit10: 2, Recall5: 2, Recall10: 2, ReciprocalRank: 1.5},
	} {
		if got := *tab.Scores[row]; got != want {
			t.Errorf("%s: %+v, want %+v", row, got, want)
		}
	}
	if rows := Tabulate(results, false).Rows; rows[len(rows)-1] != All {
		t.Errorf("without abstention rows end %v, want %q last", rows, All)
	}
}
