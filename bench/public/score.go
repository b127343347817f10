package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Score sums one group of questions' results in one mode.
type Score struct {
	N                 int
	Hit1, Hit5, Hit10 int
	Recall5, Recall10 float64
	ReciprocalRank    float64
	// Empty counts questions whose recall named no session at all.
	Empty int
}

// Add counts one question: ranked are the sessions recall named, best
// first; evidence those that hold the answer.
func (s *Score) Add(ranked, evidence []string) {
	s.N++
	if len(ranked) == 0 {
		s.Empty++
	}
	if r := FirstRank(ranked, evidence); r > 0 {
		s.ReciprocalRank += 1 / float64(r)
		if r <= 1 {
			s.Hit1++
		}
		if r <= 5 {
			s.Hit5++
		}
		if r <= 10 {
			s.Hit10++
		}
	}
	s.Recall5 += RecallAt(ranked, evidence, 5)
	s.Recall10 += RecallAt(ranked, evidence, 10)
}

// FirstRank is the 1-based place of the first evidence session in ranked,
// 0 when none is there.
func FirstRank(ranked, evidence []string) int {
	for i, s := range ranked {
		for _, e := range evidence {
			if s == e {
				return i + 1
			}
		}
	}
	return 0
}

// RecallAt is the share of the evidence sessions among the first k of
// ranked; 0 for a question without evidence.
func RecallAt(ranked, evidence []string, k int) float64 {
	if len(evidence) == 0 {
		return 0
	}
	top := map[string]bool{}
	for _, s := range ranked[:min(k, len(ranked))] {
		top[s] = true
	}
	found := 0
	for _, e := range evidence {
		if top[e] {
			found++
		}
	}
	return float64(found) / float64(len(evidence))
}

// Rates are a score as fractions of its questions.
type Rates struct {
	N        int     `json:"n"`
	Hit1     float64 `json:"hit@1"`
	Hit5     float64 `json:"hit@5"`
	Hit10    float64 `json:"hit@10"`
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	MRR      float64 `json:"mrr"`
	Empty    int     `json:"empty"`
}

// Rates divides the sums by the questions counted.
func (s Score) Rates() Rates {
	if s.N == 0 {
		return Rates{}
	}
	n := float64(s.N)
	return Rates{N: s.N, Hit1: float64(s.Hit1) / n, Hit5: float64(s.Hit5) / n, Hit10: float64(s.Hit10) / n,
		Recall5: s.Recall5 / n, Recall10: s.Recall10 / n, MRR: s.ReciprocalRank / n, Empty: s.Empty}
}

// Row names of the groups beside the categories.
const (
	All              = "all"
	AllButAbstention = "all without abstention"
)

// Table is one mode's scores by row: each category, all, and for a
// benchmark with abstention questions all without them.
type Table struct {
	Rows   []string
	Scores map[string]*Score
}

// Tabulate scores one mode's results.
func Tabulate(results []Ranked, abstention bool) Table {
	t := Table{Scores: map[string]*Score{}}
	add := func(row string, r Ranked) {
		s := t.Scores[row]
		if s == nil {
			s = &Score{}
			t.Scores[row] = s
		}
		s.Add(r.Sessions, r.Question.Evidence)
	}
	for _, r := range results {
		add(r.Question.Category, r)
		add(All, r)
		if abstention && !r.Question.Abstention {
			add(AllButAbstention, r)
		}
	}
	for row := range t.Scores {
		if row != All && row != AllButAbstention {
			t.Rows = append(t.Rows, row)
		}
	}
	sort.Strings(t.Rows)
	t.Rows = append(t.Rows, All)
	if abstention {
		t.Rows = append(t.Rows, AllButAbstention)
	}
	return t
}

// String prints the table: a row per category, then the totals.
func (t Table) String() string {
	var b strings.Builder
	width := len("category")
	for _, r := range t.Rows {
		width = max(width, len(r))
	}
	fmt.Fprintf(&b, "%-*s  %6s  %6s  %6s  %8s  %9s  %5s  %5s  %5s\n", width, "category", "hit@1", "hit@5", "hit@10", "recall@5", "recall@10", "MRR", "n", "empty")
	for _, row := range t.Rows {
		var r Rates
		if s := t.Scores[row]; s != nil {
			r = s.Rates()
		}
		fmt.Fprintf(&b, "%-*s  %6.1f  %6.1f  %6.1f  %8.1f  %9.1f  %.3f  %5d  %5d\n", width, row,
			100*r.Hit1, 100*r.Hit5, 100*r.Hit10, 100*r.Recall5, 100*r.Recall10, r.MRR, r.N, r.Empty)
	}
	return b.String()
}

// MarshalJSON writes the rates by row.
func (t Table) MarshalJSON() ([]byte, error) {
	m := map[string]Rates{}
	for _, row := range t.Rows {
		if s := t.Scores[row]; s != nil {
			m[row] = s.Rates()
		}
	}
	return json.Marshal(m)
}
