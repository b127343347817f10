package recall

import (
	"context"
	"github.com/deja-dev/deja/memory/store"
)

// minVerbatimWords is the shortest query that can be near-verbatim: two or
// three words in order are a phrase anyone might use.
const minVerbatimWords = 4

// tokens are the query's words as the keyword index cuts them, function
// words included: "why isn't backoff retrying" is near-verbatim by its
// order as much as by its rare words.
func (q query) tokens() []string { return tokens(q.text) }

// tokens are the lower-case words of s.
func tokens(s string) []string { return words(s) }

// inOrder is the share of query words that appear in text (joined words,
// see joinedWords) in the query's order (the longest common subsequence
// over the query's length): 1 when the text holds the query as a phrase,
// even with words between.
func inOrder(query []string, text string) float64 {
	if len(query) == 0 || len(text) == 0 {
		return 0
	}
	prev := make([]int, len(query)+1)
	cur := make([]int, len(query)+1)
	for t, rest, ok := nextWord(text); ok; t, rest, ok = nextWord(rest) {
		for j, w := range query {
			switch {
			case t == w:
				cur[j+1] = prev[j] + 1
			case cur[j] > prev[j+1]:
				cur[j+1] = cur[j]
			default:
				cur[j+1] = prev[j+1]
			}
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(query)]) / float64(len(query))
}

// shapePrefix is how much of a question the near-verbatim test reads: a
// pasted log holds many words in some order, and a question that mentions
// the query's words so far in holds them by chance.
const shapePrefix = 600

// shapes returns the facts fusion needs of the candidate turns: their
// size and the words of the start of their question (see turnFacts).
func shapes(ctx context.Context, s *store.Store, sem []semanticHit, kw []keywordHit) (map[int64]*turnFacts, error) {
	ids := make([]int64, 0, len(sem)+len(kw))
	for _, h := range sem {
		ids = append(ids, h.turnID)
	}
	for _, h := range kw {
		ids = append(ids, h.turnID)
	}
	return loadTurnFacts(ctx, s, ids)
}
