package recall

import (
	"context"
	"fmt"
	"github.com/deja-dev/deja/memory/store"
	"strconv"
	"strings"
)

// thinChars bounds the turns whose questions are read for content: a turn
// whose question and answer together are longer has content enough, even
// when its question is "do that".
const thinChars = 600

// minContent is the fewest content words (not function words) a short
// turn's question needs to count by meaning alone. "how are you?" has
// none, "thanks!" one; their vectors are averages of function words, near
// every short question, and in the corpus they took all five places of
// 'deja recall --mode semantic "why isn't backoff catching"'. Measured with
// 'go run ./bench/eval': the held-out vague queries found 58 of 70 in
// hybrid (56 before) and 23 in semantic (21); nothing else moved. Three
// content words cost the paraphrase of "translate it all to french".
const minContent = 2

// dropThin removes from the semantic list the turns with too little
// content to match by meaning unless they share a word with the query.
func dropThin(ctx context.Context, s *store.Store, sem []semanticHit, q query, limit int) ([]semanticHit, error) {
	if len(sem) == 0 || limit <= 0 {
		return sem, nil
	}
	if limit > thinChars {
		return dropThinRead(ctx, s, sem, q, limit)
	}
	ids := make([]int64, len(sem))
	for i, h := range sem {
		ids[i] = h.turnID
	}
	facts, err := loadTurnFacts(ctx, s, ids)
	if err != nil {
		return nil, err
	}
	asked := q.asked()
	out := sem[:0]
	for _, h := range sem {
		f := facts[h.turnID]
		if f != nil && f.short && f.chars <= limit && f.content < minContent && !sharesWord(f.text, asked) {
			continue
		}
		out = append(out, h)
	}
	return out, nil
}

// asked is the set of the query's words, those of its exact parts
// included.
func (q query) asked() map[string]bool {
	asked := map[string]bool{}
	for _, w := range q.words {
		asked[w] = true
	}
	for _, e := range q.exact {
		for _, w := range words(e) {
			asked[w] = true
		}
	}
	return asked
}

func sharesWord(text string, asked map[string]bool) bool {
	for w, rest, ok := nextWord(text); ok; w, rest, ok = nextWord(rest) {
		if asked[w] {
			return true
		}
	}
	return false
}

// dropThinRead is dropThin for a limit above what turnFacts keeps (a
// tuning sweep): it reads the short turns' text.
func dropThinRead(ctx context.Context, s *store.Store, sem []semanticHit, q query, limit int) ([]semanticHit, error) {
	ids := make([]string, len(sem))
	for i, h := range sem {
		ids[i] = strconv.FormatInt(h.turnID, 10)
	}
	rows, err := s.Read().QueryContext(ctx, `SELECT id, user, assistant FROM turns
		WHERE id IN (`+strings.Join(ids, ",")+`) AND chars <= ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: reading short turns: %w", err)
	}
	defer rows.Close()
	asked := q.asked()
	thin := map[int64]bool{}
	for rows.Next() {
		var id int64
		var user, assistant string
		if err := rows.Scan(&id, &user, &assistant); err != nil {
			return nil, err
		}
		content := 0
		for _, w := range words(user) {
			if !stopword[w] && len(w) > 1 {
				content++
			}
		}
		thin[id] = content < minContent && !sharesWord(joinedWords(user+" "+assistant), asked)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := sem[:0]
	for _, h := range sem {
		if !thin[h.turnID] {
			out = append(out, h)
		}
	}
	return out, nil
}
