package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// Query is one eval query and the turns that answer it.
type Query struct {
	Query string `json:"query"`
	// Kind is paraphrase (shares no distinctive word with its target),
	// exact (a file, command, identifier or quoted text), negative
	// (nonsense or out of domain: every mode must return nothing), missing
	// (a file, command or identifier no turn mentions: every mode must
	// return nothing), verbatim (most of its target question's words in
	// order: hybrid must rank it 1st), hub (a short, vague query of the
	// kind that turns close to everything used to win) or typo (an exact
	// lookup or a near-verbatim question with one word misspelled: recall
	// must read the word meant and rank the turn 1st).
	Kind   string   `json:"kind"`
	Expect []Target `json:"expect,omitempty"`
	// ExpectRecord makes every turn with this file or command record a hit.
	ExpectRecord string `json:"expect_record,omitempty"`
	// Store names a tiny store (bench/eval/tiny/NAME.md) the query runs
	// against instead of the corpus.
	Store string `json:"store,omitempty"`
	// Corpus names the harness corpus (a directory of
	// ../shared/harness/corpus) a query of harness.json runs against.
	Corpus string `json:"corpus,omitempty"`
}

// Target names a turn by its history's base name, the session's ordinal
// in the file and the turn's number, which survive re-indexing anywhere.
type Target struct {
	History string `json:"history"`
	Session int    `json:"session"`
	Turn    int    `json:"turn"`
}

// Score is one mode's result over the positive queries.
type Score struct {
	N          int
	Hit1, Hit5 int
	MRR        float64
	// Empty counts negatives that returned nothing, of Negatives.
	Empty, Negatives int
	// Respelled counts the queries recall read with a word respelled: all
	// of the typos, none of the rest.
	Respelled int
}

func (s Score) String() string {
	if s.N == 0 {
		return "-"
	}
	return fmt.Sprintf("hit@1 %.3f  hit@5 %.3f  MRR %.3f", float64(s.Hit1)/float64(s.N), float64(s.Hit5)/float64(s.N), s.MRR/float64(s.N))
}

// Eval runs queries against an indexed corpus.
type Eval struct {
	Store    *store.Store
	Embedder embed.Embedder
	Queries  []Query
	// Harnesses read the corpus; nil is aider alone.
	Harnesses harness.Registry
	// Tiny holds the tiny stores, by name, that queries with a Store run
	// against.
	Tiny map[string]*Eval
	// sessions maps "history#ordinal" to a session ID.
	sessions map[string]string
	// corpus holds the histories of the first Index, which queries are
	// written from (not those -extra adds).
	corpus map[string]bool
}

// empty reports a kind whose queries must return nothing.
func empty(kind string) bool { return kind == "negative" || kind == "missing" }

// scoreKeys are the score groups a query counts in: its kind, "all" for
// the corpus's paraphrases and exact lookups (the figures of earlier
// evals), and for a tiny store "tiny " and its kind instead.
func scoreKeys(q Query) []string {
	if q.Store != "" {
		return []string{"tiny " + q.Kind}
	}
	if q.Kind == "paraphrase" || q.Kind == "exact" || q.Kind == "negative" {
		return []string{q.Kind, "all"}
	}
	return []string{q.Kind}
}

// LoadQueries reads the eval's queries.
func LoadQueries(path string) ([]Query, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qs []Query
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return qs, nil
}

// Corpus lists the corpus's history files.
func Corpus(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no histories in %s", dir)
	}
	for i, p := range paths {
		if paths[i], err = filepath.Abs(p); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// Index brings the store up to date with the corpus.
func (e *Eval) Index(ctx context.Context, paths []string) (index.Report, error) {
	if e.corpus == nil {
		e.corpus = map[string]bool{}
		for _, p := range paths {
			e.corpus[p] = true
		}
	}
	rep, err := index.Index(ctx, e.Store, index.Options{Paths: paths, Embedder: e.Embedder, Harnesses: e.Harnesses})
	if err != nil {
		return rep, err
	}
	list, err := digest.Sessions(ctx, e.Store, recall.Scope{})
	if err != nil {
		return rep, err
	}
	e.sessions = map[string]string{}
	for _, s := range list {
		e.sessions[fmt.Sprintf("%s#%d", filepath.Base(s.History), s.Ordinal)] = s.ID
	}
	return rep, nil
}

// Outcome is one query's result in one mode.
type Outcome struct {
	Query Query
	// Rank is the 1-based rank of the first right turn, 0 when none of the
	// first 10 is right; for a negative, Results counts what came back.
	Rank    int
	Results int
	Top     string
	// Respelled are the words recall read in place of the query's.
	Respelled []recall.Respelling
}

// Run scores every query in one mode with the given tuning.
func (e *Eval) Run(ctx context.Context, mode recall.Mode, tune recall.Tuning) (map[string]Score, []Outcome, error) {
	scores := map[string]Score{}
	var outcomes []Outcome
	for _, q := range e.Queries {
		on := e
		if q.Store != "" {
			if on = e.Tiny[q.Store]; on == nil {
				return nil, nil, fmt.Errorf("%q: no tiny store %q", q.Query, q.Store)
			}
		}
		r, err := recall.Recall(ctx, on.Store, recall.Options{Query: q.Query, Mode: mode, Embedder: e.Embedder, Limit: 10, Tuning: &tune})
		if err != nil {
			return nil, nil, fmt.Errorf("%q: %w", q.Query, err)
		}
		o := Outcome{Query: q, Results: len(r.Results), Respelled: r.Respelled}
		if len(r.Results) > 0 {
			o.Top = fmt.Sprintf("%s/%d %q", r.Results[0].SessionID, r.Results[0].Turn, oneLine(r.Results[0].User))
		}
		for i, res := range r.Results {
			if on.right(q, res) {
				o.Rank = i + 1
				break
			}
		}
		outcomes = append(outcomes, o)
		for _, key := range scoreKeys(q) {
			s := scores[key]
			if len(o.Respelled) > 0 {
				s.Respelled++
			}
			if empty(q.Kind) {
				s.Negatives++
				if o.Results == 0 {
					s.Empty++
				}
			} else {
				s.N++
				if o.Rank == 1 {
					s.Hit1++
				}
				if o.Rank >= 1 && o.Rank <= 5 {
					s.Hit5++
				}
				if o.Rank > 0 {
					s.MRR += 1 / float64(o.Rank)
				}
			}
			scores[key] = s
		}
	}
	return scores, outcomes, nil
}

func (e *Eval) right(q Query, res recall.Result) bool {
	if q.ExpectRecord != "" {
		for _, r := range append(append([]string{}, res.Files...), res.Commands...) {
			if r == q.ExpectRecord || strings.HasSuffix(r, "/"+q.ExpectRecord) {
				return true
			}
		}
	}
	for _, t := range q.Expect {
		if e.sessions[fmt.Sprintf("%s#%d", t.History, t.Session)] == res.SessionID && t.Turn == res.Turn {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 50 {
		return string(r[:50]) + "…"
	}
	return s
}

// Similarity is what the semantic list sees of one query with no floor
// and no domain test: the basis for choosing them.
type Similarity struct {
	// Best is the similarity of the most similar turn, Target that of the
	// first right turn (0 when none is in the first 500 or the query is a
	// negative), Mean the query's mean similarity to the store.
	Best, Target, Mean float32
}

// Similarities measures every query's Similarity.
func (e *Eval) Similarities(ctx context.Context, tune recall.Tuning) ([]Similarity, error) {
	tune.Floor, tune.Domain = -1, 0
	var out []Similarity
	for _, q := range e.Queries {
		on := e
		if q.Store != "" {
			on = e.Tiny[q.Store]
		}
		r, err := recall.Recall(ctx, on.Store, recall.Options{Query: q.Query, Mode: recall.Semantic, Embedder: e.Embedder, Limit: 500, Tuning: &tune})
		if err != nil {
			return nil, fmt.Errorf("%q: %w", q.Query, err)
		}
		s := Similarity{Mean: r.MeanSimilarity}
		if len(r.Results) > 0 {
			s.Best = r.Results[0].Similarity
		}
		if !empty(q.Kind) {
			for _, res := range r.Results {
				if on.right(q, res) {
					s.Target = res.Similarity
					break
				}
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// IndexTiny builds a store for each tiny history that a query names
// (dir/NAME.md), each in its own directory under root.
func (e *Eval) IndexTiny(ctx context.Context, dir, root string) error {
	e.Tiny = map[string]*Eval{}
	for _, q := range e.Queries {
		if q.Store == "" || e.Tiny[q.Store] != nil {
			continue
		}
		path, err := filepath.Abs(filepath.Join(dir, q.Store+".md"))
		if err != nil {
			return err
		}
		s, err := store.Open(ctx, filepath.Join(root, q.Store))
		if err != nil {
			return err
		}
		t := &Eval{Store: s, Embedder: e.Embedder}
		if _, err := t.Index(ctx, []string{path}); err != nil {
			s.Close()
			return err
		}
		e.Tiny[q.Store] = t
	}
	return nil
}

// Close closes the tiny stores.
func (e *Eval) Close() {
	for _, t := range e.Tiny {
		t.Store.Close()
	}
}

// respelledOthers counts the queries other than typos that recall read
// with a word respelled: a word spelled right must never be.
func respelledOthers(scores map[string]Score) int {
	n := 0
	for key, s := range scores {
		if key != "typo" && key != "all" {
			n += s.Respelled
		}
	}
	return n
}
