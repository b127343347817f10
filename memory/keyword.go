package memory

import (
	"context"
	"fmt"
	"strings"
)

// keywordHit is one turn matched by the keyword index.
type keywordHit struct {
	turnID int64
	// bm25 is FTS5's score: lower (more negative) is better.
	bm25 float64
	// literal: a record or the text holds an exact part as typed.
	literal bool
}

// keywordDepth is how many turns the keyword list keeps for fusion.
const keywordDepth = 100

// bm25Weights weigh the columns user, assistant, files, commands: a path
// or command in a turn's records says more than the same words in prose.
const bm25Weights = "3.0, 1.0, 6.0, 6.0"

// keyword returns the turns the keyword index ranks for the query, best
// first, within scope. A natural-language query must match at least half
// its words (see query.match); an exact query must
// match every exact part, and turns holding a part literally (a record
// equal to it, or the text containing it as typed) come first.
func (s *Store) keyword(ctx context.Context, q query, sc Scope) ([]keywordHit, error) {
	m := q.match()
	if m == "" {
		return nil, nil
	}
	where, args := sc.sql()
	rows, err := s.db.QueryContext(ctx, `
		SELECT t.id, bm25(turns_fts, `+bm25Weights+`), t.files, t.commands, t.user, t.assistant
		FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN sessions s ON s.id = t.session_id
		WHERE turns_fts MATCH ? AND `+where+`
		ORDER BY bm25(turns_fts, `+bm25Weights+`) LIMIT ?`,
		append(append([]any{m}, args...), keywordDepth*2)...)
	if err != nil {
		return nil, fmt.Errorf("store: keyword query %q: %w", m, err)
	}
	defer rows.Close()
	var hits []keywordHit
	for rows.Next() {
		var h keywordHit
		var files, commands, user, assistant string
		if err := rows.Scan(&h.turnID, &h.bm25, &files, &commands, &user, &assistant); err != nil {
			return nil, err
		}
		if q.isExact() {
			h.literal = literal(q.exact, files, commands, user, assistant)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if q.isExact() {
		stableLiteralFirst(hits)
	}
	if len(hits) > keywordDepth {
		hits = hits[:keywordDepth]
	}
	return hits, nil
}

// literal reports whether a record is one of the exact parts (or ends in
// it, for a path given shorter), or the text contains one as typed.
func literal(exact []string, files, commands, user, assistant string) bool {
	for _, e := range exact {
		for _, r := range append(splitLines(files), splitLines(commands)...) {
			if r == e || strings.HasSuffix(r, "/"+e) || strings.HasPrefix(r, e+" ") {
				return true
			}
		}
		if strings.Contains(user, e) || strings.Contains(assistant, e) {
			return true
		}
	}
	return false
}

func stableLiteralFirst(h []keywordHit) {
	out := make([]keywordHit, 0, len(h))
	for _, x := range h {
		if x.literal {
			out = append(out, x)
		}
	}
	for _, x := range h {
		if !x.literal {
			out = append(out, x)
		}
	}
	copy(h, out)
}
