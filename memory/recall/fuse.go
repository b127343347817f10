package recall

import (
	"math"
	"sort"
	"time"
)

// FusionK is reciprocal rank fusion's k: a turn at rank r of a list adds
// weight/(k+r). 60 is the value cass and qmd use; the eval confirmed it
// (see bench/eval).
const FusionK = 60

// exactWeight is the keyword list's weight when the query is exact-looking
// (a path, a command, quoted text, an identifier): the user means those
// characters, and the keyword index is the list that knows them.
const exactWeight = 3.0

// longChars is the length above which a turn's fused score shrinks in
// proportion (Tuning.LongDamp 1). 17 of the corpus's 1,313 turns are
// longer; one of them is a whole changelog translated into French, which
// holds a little of every topic, so it ranked in the middle of both lists
// for unrelated queries and won by fusion. Measured with 'go run
// ./bench/eval' (see docs/recall.md): with this and verbatimShare the share of
// generated queries whose top 5 hold the most frequent turn fell from
// 6.2 % to 2.9 % on the set they were tuned on and from 9.2 % to 4.3 % on
// the held-out set, and hybrid paraphrase hit@5 rose from 0.455 to 0.500.
// Damping from 4,000 characters cost held-out vague queries 9 of 100.
const longChars = 12000

// verbatimShare is the share of a query's words a question must hold in
// order to rank first. Measured on generated near-verbatim queries (a
// question's first eight words): hit@1 rose from 65 to 81 of 81 on the
// tuning set and from 57 to 67 of 70 on the held-out one, and the
// hand-written near-verbatim queries all rank 1st; nothing else fell.
const verbatimShare = 0.75

// fused is one turn after fusion, with its place in each list (0: absent).
type fused struct {
	turnID       int64
	score        float64
	semanticRank int
	keywordRank  int
	similarity   float32
}

// pool is the turns of both lists, each once, in the order first seen.
type pool struct {
	byID  map[int64]*fused
	order []*fused
}

// get is the turn's entry, added when new.
func (p *pool) get(id int64) *fused {
	if f, ok := p.byID[id]; ok {
		return f
	}
	if p.byID == nil {
		p.byID = map[int64]*fused{}
	}
	f := &fused{turnID: id}
	p.byID[id] = f
	p.order = append(p.order, f)
	return f
}

// ranked is the turns by score, best first; ties keep the order first
// seen.
func (p *pool) ranked() []fused {
	out := make([]fused, len(p.order))
	for i, f := range p.order {
		out[i] = *f
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// fuse merges the semantic and keyword lists by weighted reciprocal rank
// fusion. Ties keep the semantic list's order, then the keyword list's.
// With shapes (the turns' sizes and questions, see shapes) it also weighs
// what rank alone cannot tell: a question holding the query's words in
// order comes first, and a very long turn counts less.
func fuse(sem []semanticHit, kw []keywordHit, exact bool, tune Tuning, q query, shapes map[int64]*turnFacts) []fused {
	kwWeight := 1.0
	if exact {
		kwWeight = tune.ExactWeight
	}
	k := float64(tune.FusionK)
	var p pool
	for i, h := range sem {
		f := p.get(h.turnID)
		f.semanticRank = i + 1
		f.similarity = h.similarity
		f.score += 1.0 / (k + float64(i+1))
	}
	for i, h := range kw {
		f := p.get(h.turnID)
		f.keywordRank = i + 1
		f.score += kwWeight / (k + float64(i+1))
	}
	words := q.tokens()
	for _, f := range p.order {
		if sh := shapes[f.turnID]; sh != nil {
			f.score *= tune.longFactor(sh)
			f.score += tune.verbatim(q, words, sh) // above any fused score: first, the fullest first
		}
	}
	return p.ranked()
}

// longFactor is what a turn's score is scaled by for its length: 1 up to
// LongChars characters, in proportion beyond (LongDamp 1).
func (tune Tuning) longFactor(sh *turnFacts) float64 {
	if tune.LongChars > 0 && sh.chars > tune.LongChars {
		return math.Pow(float64(tune.LongChars)/float64(sh.chars), tune.LongDamp)
	}
	return 1
}

// verbatim is the share of the query's words (tokens) that the turn's
// question holds in order when that share reaches Verbatim, else 0.
func (tune Tuning) verbatim(q query, tokens []string, sh *turnFacts) float64 {
	if tune.Verbatim > 0 && len(q.words) > 0 && len(tokens) >= minVerbatimWords {
		if c := inOrder(tokens, sh.words); c >= tune.Verbatim {
			return c
		}
	}
	return 0
}

// blend ranks a natural-language query's turns by what each list says of
// them, rather than by their places alone (fuse). A turn's score is the
// sum of:
//
//   - its keyword score: its BM25 over the keyword list's best, so the
//     best match counts 1 and a turn holding a rarer word of the query
//     counts more than one holding a common one; a turn holding fewer than
//     half the query's words (see keyword) counts Partial of that;
//   - its semantic score: SemanticWeight × (k+1)/(k+rank), k
//     SemanticRankK, by its place in the semantic list (similarities
//     crowd together, places do not);
//   - the time the query names (when), as a prior, never a filter: When ×
//     e^(-d/WhenDays), d the days between the turn and that period (0
//     within it).
//
// As in fuse, a very long turn's score from the lists shrinks (before the
// time's part is added), and a question holding the query's words in order
// comes first.
func blend(sem []semanticHit, kw []keywordHit, tune Tuning, q query, facts map[int64]*turnFacts, when *period) []fused {
	var p pool
	k := tune.SemanticRankK
	for i, h := range sem {
		f := p.get(h.turnID)
		f.semanticRank = i + 1
		f.similarity = h.similarity
		f.score += tune.SemanticWeight * (k + 1) / (k + float64(i+1))
	}
	var top float64
	for _, h := range kw {
		top = max(top, -h.bm25)
	}
	held := 0
	for _, h := range kw {
		f := p.get(h.turnID)
		if h.half {
			// The place among the turns holding half the words, as the
			// keyword list was before it reached the rest: a hook lets
			// another project's turn through only at place 1.
			held++
			f.keywordRank = held
		}
		if top > 0 {
			part := max(0, -h.bm25) / top
			if !h.half {
				part *= tune.Partial
			}
			f.score += part
		}
	}
	tokens := q.tokens()
	for _, f := range p.order {
		sh := facts[f.turnID]
		if sh == nil {
			continue
		}
		f.score *= tune.longFactor(sh)
		if when != nil && sh.at != 0 && tune.WhenDays > 0 {
			f.score += tune.When * math.Exp(-when.distance(time.Unix(0, sh.at))/tune.WhenDays)
		}
		f.score += verbatimLift * tune.verbatim(q, tokens, sh) // above any blended score: first, the fullest first
	}
	return p.ranked()
}

// verbatimLift puts a near-verbatim question above every blended score
// (the keyword list adds at most 1, the semantic SemanticWeight, the time
// When).
const verbatimLift = 100

// The weights of blend, chosen on LoCoMo and bench/eval together; see
// docs/recall.md for what each moved.
const (
	semanticWeight = 0.6
	semanticRankK  = 5
	partialWeight  = 0.3
	whenWeight     = 2.0
	whenDays       = 7.0
)
