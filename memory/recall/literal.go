package recall

import (
	"context"
	"fmt"
	"github.com/deja-dev/deja/memory/store"
	"strings"
)

// literalDepth bounds the turns that mention a query's exact parts which
// recall ranks: the best by BM25, so a literal held by thousands of turns
// stays a bounded query.
const literalDepth = 1000

// literalGate applies what a query means literally. A guessed exact part
// that no turn in scope mentions is read as words instead (see
// query.guessed). For the other exact parts it returns the turns that
// mention every one of them, case aside, which are the only turns recall
// may return. When there are none, notFound names the parts no turn
// mentions, or all of them when each is mentioned but never in one turn,
// and note says so. A query with no exact part has a nil set: every turn
// may match.
func literalGate(ctx context.Context, s *store.Store, q query, sc Scope) (_ query, allowed map[int64]bool, notFound []string, note string, err error) {
	for _, e := range q.exact {
		if !q.guessed[e] {
			continue
		}
		ids, err := mentioning(ctx, s, []string{e}, sc, 1)
		if err != nil {
			return q, nil, nil, "", err
		}
		if len(ids) == 0 {
			q = q.demote(e)
		}
	}
	parts := q.searchable()
	if len(parts) == 0 {
		return q, nil, nil, "", nil
	}
	ids, err := mentioning(ctx, s, parts, sc, literalDepth)
	if err != nil || len(ids) > 0 {
		allowed = make(map[int64]bool, len(ids))
		for _, id := range ids {
			allowed[id] = true
		}
		return q, allowed, nil, "", err
	}
	for _, p := range parts {
		one, err := mentioning(ctx, s, []string{p}, sc, 1)
		if err != nil {
			return q, nil, nil, "", err
		}
		if len(one) == 0 {
			notFound = append(notFound, p)
		}
	}
	if len(notFound) == 0 {
		return q, map[int64]bool{}, parts, "no turn mentions " + strings.Join(parts, " and ") + " together", nil
	}
	return q, map[int64]bool{}, notFound, "no turn mentions " + strings.Join(notFound, " or "), nil
}

// searchable are the exact parts that have words the keyword index holds;
// a part of punctuation alone ("./...") cannot be looked up.
func (q query) searchable() []string {
	var out []string
	for _, e := range q.exact {
		if phrase(e) != "" {
			out = append(out, e)
		}
	}
	return out
}

// mentioning returns up to limit turns in scope whose question, answer or
// records contain every part as typed, case aside, best BM25 first. The
// keyword index finds the candidates (the parts' words in order); the
// text decides, so "go test ./..." is not found in a turn that says "go
// test it".
func mentioning(ctx context.Context, s *store.Store, parts []string, sc Scope, limit int) ([]int64, error) {
	var match []string
	var conds []string
	var needles []any
	for _, p := range parts {
		match = append(match, phrase(p))
		needle := strings.ToLower(p)
		if strings.Contains(needle, "\n") {
			conds = append(conds, `instr(lower(t.user || char(10) || t.assistant || char(10) || t.files || char(10) || t.commands), ?) > 0`)
			needles = append(needles, needle)
			continue
		}
		// Without a line break the part cannot span two fields, so each
		// is searched alone, the short records first: SQLite stops at the
		// first that holds it, and a question or answer is inflated only
		// when reached. Measured by a one-off CPU profile at 100k turns
		// (bench/perf's corpus store) over the eval's queries,
		// three times each: this lookup's CPU went from 2.2 s to 0.85 s,
		// warm hybrid recall's mean from 66 to 72 ms to 54 to 60 ms.
		conds = append(conds, `(instr(lower(t.files || char(10) || t.commands), ?) > 0 OR instr(lower(t.user), ?) > 0 OR instr(lower(t.assistant), ?) > 0)`)
		needles = append(needles, needle, needle, needle)
	}
	where, wargs := sc.Sql()
	query := `SELECT t.id FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN sessions s ON s.id = t.session_id
		WHERE turns_fts MATCH ? AND ` + where + ` AND ` + strings.Join(conds, " AND ") + `
		ORDER BY bm25(turns_fts, ` + bm25Weights + `) LIMIT ?`
	args := append([]any{strings.Join(match, " AND ")}, wargs...)
	args = append(append(args, needles...), limit)
	ids, err := store.QueryColumn[int64](ctx, s.Read(), query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: looking up %q: %w", parts, err)
	}
	return ids, nil
}
