package memory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
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

// inOrder is the share of query words that appear in text in the query's
// order (the longest common subsequence over the query's length): 1 when
// the text holds the query as a phrase, even with words between.
func inOrder(query, text []string) float64 {
	if len(query) == 0 || len(text) == 0 {
		return 0
	}
	prev := make([]int, len(query)+1)
	cur := make([]int, len(query)+1)
	for _, t := range text {
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

// turnShape is what fusion needs of a candidate turn besides its ranks:
// its size and the start of its question.
type turnShape struct {
	chars int
	user  string
}

// shapePrefix is how much of a question the near-verbatim test reads: a
// pasted log holds many words in some order, and a question that mentions
// the query's words so far in holds them by chance.
const shapePrefix = 600

// shapes reads the size and the start of the question of the candidate
// turns, in one query over their IDs.
func (s *Store) shapes(ctx context.Context, sem []semanticHit, kw []keywordHit) (map[int64]turnShape, error) {
	ids := make([]string, 0, len(sem)+len(kw))
	seen := map[int64]bool{}
	add := func(id int64) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, strconv.FormatInt(id, 10))
		}
	}
	for _, h := range sem {
		add(h.turnID)
	}
	for _, h := range kw {
		add(h.turnID)
	}
	out := make(map[int64]turnShape, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, length(user) + length(assistant), substr(user, 1, ?) FROM turns WHERE id IN (`+strings.Join(ids, ",")+`)`, shapePrefix)
	if err != nil {
		return nil, fmt.Errorf("store: reading candidates: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sh turnShape
		if err := rows.Scan(&id, &sh.chars, &sh.user); err != nil {
			return nil, err
		}
		out[id] = sh
	}
	return out, rows.Err()
}
