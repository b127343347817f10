package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
)

// Generated is a query written from one turn of the corpus, for the
// hubness measure and the generated near-verbatim class: its words come
// from the turn's question, so the turn is a right answer.
type Generated struct {
	Query string
	// Kind is verbatim (the question's first words, in order), vague (a
	// few of its words, out of order, as a half-remembered question) or
	// file (a path the turn's records hold).
	Kind string
	// Right are the turns that answer it: the source turn and any turn
	// asking the same question (for a verbatim query, any question that
	// opens with its words); for a file, every turn with that record.
	Right map[string]bool
	// Set is "dev" or "held-out": a hash of the turn splits the corpus in
	// two, so a ranking change tuned on one is confirmed on the other.
	Set string
}

// turnKey names a recalled turn.
func turnKey(session string, turn int) string { return fmt.Sprintf("%s/%d", session, turn) }

// Generate writes the generated queries from every indexed session: for
// the first turn of each session whose question has at least six distinct
// words of four or more letters (and was not asked before), a verbatim and
// a vague query, and for one turn in four
// with a file record, a lookup of that file (each file once). At most perSet turns of each
// set are used, taken in a fixed order.
func (e *Eval) Generate(ctx context.Context, perSet int) ([]Generated, error) {
	list, err := digest.Sessions(ctx, e.Store, recall.Scope{})
	if err != nil {
		return nil, err
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].History != list[j].History {
			return list[i].History < list[j].History
		}
		return list[i].Ordinal < list[j].Ordinal
	})
	type source struct {
		key, session, user, set string
		files                   []string
	}
	var sources []source
	byQuestion := map[string][]string{}
	byFile := map[string]map[string]bool{}
	for _, si := range list {
		if !e.corpus[si.History] {
			continue
		}
		d, err := digest.Session(ctx, e.Store, si.ID)
		if err != nil {
			return nil, err
		}
		for _, t := range d.Turns {
			key := turnKey(si.ID, t.Turn)
			for _, f := range t.Files {
				if byFile[f] == nil {
					byFile[f] = map[string]bool{}
				}
				byFile[f][key] = true
			}
			user := strings.Join(strings.Fields(t.User), " ")
			if user == "" {
				continue
			}
			q := normalQuestion(user)
			byQuestion[q] = append(byQuestion[q], key)
			h := fnv.New32a()
			fmt.Fprintf(h, "%s#%d/%d", filepath.Base(si.History), si.Ordinal, t.Turn)
			set := "dev"
			if h.Sum32()%2 == 1 {
				set = "held-out"
			}
			sources = append(sources, source{key: key, session: si.ID, user: user, set: set, files: t.Files})
		}
	}
	used := map[string]int{}
	seen := map[string]bool{}
	var out []Generated
	for _, s := range sources {
		content := contentWords(s.user)
		if len(content) < 6 || used[s.set] >= perSet {
			continue
		}
		q := normalQuestion(s.user)
		if seen[q] || seen["session "+s.session] {
			continue // varied: one question per session, each question once
		}
		seen[q], seen["session "+s.session] = true, true
		used[s.set]++
		right := map[string]bool{}
		for _, k := range byQuestion[q] {
			right[k] = true
		}
		verbatim := firstWords(s.user, 8)
		opening := map[string]bool{}
		prefix := normalQuestion(verbatim)
		for q, keys := range byQuestion {
			if strings.HasPrefix(q, prefix) {
				for _, k := range keys {
					opening[k] = true
				}
			}
		}
		out = append(out,
			Generated{Query: verbatim, Kind: "verbatim", Right: opening, Set: s.set},
			Generated{Query: vague(content), Kind: "vague", Right: right, Set: s.set})
		{
			for _, f := range s.files {
				if (strings.Contains(f, "/") || strings.Contains(f, ".")) && !seen["file "+f] {
					seen["file "+f] = true
					out = append(out, Generated{Query: f, Kind: "file", Right: byFile[f], Set: s.set})
					break
				}
			}
		}
	}
	return out, nil
}

// normalQuestion is a question's words, lower case, for telling the same
// question asked twice.
func normalQuestion(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// firstWords is the first n words of s as typed, less trailing punctuation.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.TrimRight(strings.Join(f, " "), ".,;:?!")
}

// contentWords are the distinct plain words of four or more letters.
func contentWords(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) >= 4 && !seen[w] && !filler[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// vague is four of the words, every other one from the third, last first:
// what a person half remembers of a question, not its opening.
func vague(content []string) string {
	var pick []string
	for i := 2; i < len(content) && len(pick) < 4; i += 2 {
		pick = append(pick, content[i])
	}
	for i, j := 0, len(pick)-1; i < j; i, j = i+1, j-1 {
		pick[i], pick[j] = pick[j], pick[i]
	}
	return strings.Join(pick, " ")
}

// filler are words of four or more letters that carry no topic.
var filler = map[string]bool{
	"that": true, "this": true, "with": true, "from": true, "have": true, "what": true, "when": true,
	"where": true, "which": true, "there": true, "their": true, "they": true, "then": true, "than": true,
	"them": true, "these": true, "those": true, "would": true, "could": true, "should": true, "will": true,
	"just": true, "into": true, "also": true, "make": true, "sure": true, "like": true, "does": true,
	"dont": true, "please": true, "about": true, "only": true, "some": true, "been": true, "were": true,
	"your": true, "other": true, "each": true, "more": true, "need": true, "want": true,
}

// Hubness is how much one turn crowds the top 5 of unrelated queries.
type Hubness struct {
	Queries int
	// Share is the fraction of queries whose top 5 hold the most frequent
	// turn, Hub that turn and Count how many queries it appears in.
	Share float64
	Hub   string
	Count int
	// Verbatim counts the verbatim queries and those whose right turn
	// ranks 1st; Vague those and the vague ones found in the top 5; Files
	// the file lookups and those found in the top 5.
	Verbatim, Verbatim1 int
	Vague, Vague5       int
	Files, Files5       int
	// Where are the queries whose top 5 hold the hub, with its place in
	// each list ("k3 s1": 3rd by keywords, 1st by meaning).
	Where []string
	// Misses are the verbatim queries whose turn did not rank 1st.
	Misses []string
}

// Hubs runs the generated queries of one set ("dev", "held-out" or
// "all") in mode, with the hand-written ones of the corpus except for
// "held-out", and measures their hubness.
func (e *Eval) Hubs(ctx context.Context, gen []Generated, set string, mode recall.Mode, tune recall.Tuning) (Hubness, error) {
	var h Hubness
	count := map[string]int{}
	users := map[string]string{}
	where := map[string][]string{}
	top5 := func(q string) ([]recall.Result, error) {
		r, err := recall.Recall(ctx, e.Store, recall.Options{Query: q, Mode: mode, Embedder: e.Embedder, Limit: 5, Tuning: &tune})
		if err != nil {
			return nil, fmt.Errorf("%q: %w", q, err)
		}
		h.Queries++
		for _, res := range r.Results {
			k := turnKey(res.SessionID, res.Turn)
			count[k]++
			users[k] = res.User
			where[k] = append(where[k], fmt.Sprintf("k%d s%d %.2f %s", res.KeywordRank, res.SemanticRank, res.Similarity, q))
		}
		return r.Results, nil
	}
	for _, g := range gen {
		if set != "all" && g.Set != set {
			continue
		}
		res, err := top5(g.Query)
		if err != nil {
			return h, err
		}
		rank := 0
		for i, r := range res {
			if g.Right[turnKey(r.SessionID, r.Turn)] {
				rank = i + 1
				break
			}
		}
		switch g.Kind {
		case "verbatim":
			h.Verbatim++
			if rank == 1 {
				h.Verbatim1++
			} else {
				top := ""
				if len(res) > 0 {
					top = oneLine(res[0].User)
				}
				h.Misses = append(h.Misses, fmt.Sprintf("rank %d %q, first %q", rank, g.Query, top))
			}
		case "vague":
			h.Vague++
			if rank > 0 {
				h.Vague5++
			}
		case "file":
			h.Files++
			if rank > 0 {
				h.Files5++
			}
		}
	}
	if set != "held-out" {
		for _, q := range e.Queries {
			if q.Store == "" {
				if _, err := top5(q.Query); err != nil {
					return h, err
				}
			}
		}
	}
	for k, n := range count {
		if n > h.Count || (n == h.Count && k < h.Hub) {
			h.Hub, h.Count = k, n
		}
	}
	if h.Queries > 0 {
		h.Share = float64(h.Count) / float64(h.Queries)
	}
	if h.Hub != "" {
		h.Where = where[h.Hub]
		h.Hub += " " + fmt.Sprintf("%q", oneLine(users[h.Hub]))
	}
	return h, nil
}

func (h Hubness) String() string {
	return fmt.Sprintf("hubness %.1f%% (%d of %d queries: %s); verbatim hit@1 %d/%d, vague hit@5 %d/%d, file hit@5 %d/%d",
		100*h.Share, h.Count, h.Queries, h.Hub, h.Verbatim1, h.Verbatim, h.Vague5, h.Vague, h.Files5, h.Files)
}
