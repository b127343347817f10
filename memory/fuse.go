package memory

import "sort"

// FusionK is reciprocal rank fusion's k: a turn at rank r of a list adds
// weight/(k+r). 60 is the value cass and qmd use; the eval confirmed it
// (see bench/eval).
const FusionK = 60

// exactWeight is the keyword list's weight when the query is exact-looking
// (a path, a command, quoted text, an identifier): the user means those
// characters, and the keyword index is the list that knows them.
const exactWeight = 3.0

// fused is one turn after fusion, with its place in each list (0: absent).
type fused struct {
	turnID       int64
	score        float64
	semanticRank int
	keywordRank  int
	similarity   float32
}

// fuse merges the semantic and keyword lists by weighted reciprocal rank
// fusion. Ties keep the semantic list's order, then the keyword list's.
func fuse(sem []semanticHit, kw []keywordHit, exact bool, tune Tuning) []fused {
	kwWeight := 1.0
	if exact {
		kwWeight = tune.ExactWeight
	}
	k := float64(tune.FusionK)
	byID := map[int64]*fused{}
	var order []*fused
	get := func(id int64) *fused {
		if f, ok := byID[id]; ok {
			return f
		}
		f := &fused{turnID: id}
		byID[id] = f
		order = append(order, f)
		return f
	}
	for i, h := range sem {
		f := get(h.turnID)
		f.semanticRank = i + 1
		f.similarity = h.similarity
		f.score += 1.0 / (k + float64(i+1))
	}
	for i, h := range kw {
		f := get(h.turnID)
		f.keywordRank = i + 1
		f.score += kwWeight / (k + float64(i+1))
	}
	out := make([]fused, len(order))
	for i, f := range order {
		out[i] = *f
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}
