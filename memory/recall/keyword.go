package recall

import (
	"context"
	"fmt"
	"github.com/deja-dev/deja/memory/store"
	"sort"
	"strconv"
	"strings"
)

// keywordHit is one turn matched by the keyword index.
type keywordHit struct {
	turnID int64
	// bm25 is FTS5's score: lower (more negative) is better.
	bm25 float64
	// literal: a record or the text holds an exact part as typed.
	literal bool
	// bare: the turn is records only, such as the files a /add put in
	// the chat, with no question or answer.
	bare bool
	// half: the turn holds at least half a natural-language query's
	// words (see query.match).
	half bool
}

// keywordDepth is how many turns an exact query's keyword list keeps for
// fusion; a natural-language query's keeps twice as many, and up to as
// many again that hold half its words (see broaden).
const keywordDepth = 100

// bm25Weights weigh the columns user, assistant, files, commands: a path
// or command in a turn's records says more than the same words in prose.
const bm25Weights = "3.0, 1.0, 6.0, 6.0"

// keyword returns the turns the keyword index ranks for the query, best
// first, within scope.
//
// A natural-language query lists the turns holding any of its words, by
// BM25 (whose weighting makes a rare shared word count and a common one
// hardly at all), so a paraphrase that shares two words with its turn
// still reaches fusion. Whether the list counts at all is the stricter
// test: some turn must hold at least half the query's words (see
// query.match); those turns are marked half. A query that no turn
// matches that well has no keyword list of its own (see gateKeywords), so
// a question about banana bread finds nothing in a store where "bread"
// appears once.
//
// An exact query must match every exact part, and turns holding a part
// literally (a record equal to it, or the text containing it as typed)
// come first. A mixed query ("the flaky test in query_test.go") ranks the
// turns that also hold one of its other words before those that hold the
// exact parts alone.
func keyword(ctx context.Context, s *store.Store, q query, sc Scope) ([]keywordHit, error) {
	m := q.match()
	if m == "" {
		return nil, nil
	}
	if !q.isExact() {
		return broaden(ctx, s, q, m, sc)
	}
	hits, err := keywordMatch(ctx, s, m, sc)
	if err != nil {
		return nil, err
	}
	if len(q.words) > 0 {
		if either := q.anyWord(); either != "" {
			first, err := keywordMatch(ctx, s, m+" AND ("+either+")", sc)
			if err != nil {
				return nil, err
			}
			hits = mergeHits(first, hits)
		}
	}
	if err := markLiteral(ctx, s, q, hits); err != nil {
		return nil, err
	}
	literalFirst(hits)
	if len(hits) > keywordDepth {
		hits = hits[:keywordDepth]
	}
	return hits, nil
}

// broaden is the keyword list of a natural-language query whose
// half-the-words expression is m: the best keywordDepth*2 turns holding
// any of its words, by BM25, those holding half of them marked half. Which
// turns hold half is read unscored (the index lists them without ranking
// any); the newest keywordDepth of those the any-word list's depth left
// out follow it, marked half, at its last score. A query of one or two
// words has only the one list: half of two words is either.
func broaden(ctx context.Context, s *store.Store, q query, m string, sc Scope) ([]keywordHit, error) {
	either := q.anyWord()
	if strings.Count(either, " OR ") <= 1 {
		hits, err := keywordMatch(ctx, s, m, sc)
		for i := range hits {
			hits[i].half = true
		}
		return hits, err
	}
	hits, err := keywordMatch(ctx, s, either, sc)
	if err != nil || len(hits) == 0 {
		return hits, err
	}
	half, err := matchingIDs(ctx, s, m, sc)
	if err != nil {
		return nil, err
	}
	at := make(map[int64]int, len(hits))
	for i, h := range hits {
		at[h.turnID] = i
	}
	last := hits[len(hits)-1].bm25
	var rest []keywordHit
	for i := len(half) - 1; i >= 0; i-- {
		if j, ok := at[half[i]]; ok {
			hits[j].half = true
		} else if len(rest) < keywordDepth {
			rest = append(rest, keywordHit{turnID: half[i], bm25: last, half: true})
		}
	}
	return append(hits, rest...), nil
}

// matchingIDs are the turns within scope that match the FTS5 expression m,
// unscored, in the index's (rowid) order.
func matchingIDs(ctx context.Context, s *store.Store, m string, sc Scope) ([]int64, error) {
	query := `SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rowid`
	args := []any{m}
	if sc.filtered() || (sc.excludesSubagents() && hasSubagents(ctx, s)) {
		where, wargs := sc.Sql()
		query = `SELECT t.id FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN sessions s ON s.id = t.session_id
			WHERE turns_fts MATCH ? AND ` + where + ` ORDER BY t.id`
		args = append(args, wargs...)
	}
	ids, err := store.QueryColumn[int64](ctx, s.Read(), query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: keyword query %q: %w", m, err)
	}
	return ids, nil
}

// gateKeywords keeps a natural-language query's keyword list only when it
// counts: some turn holds half the query's words, or (with meaning) the
// semantic list found the query's subject in the store, when a turn
// sharing a rarer word is worth ranking too. An exact query's list always
// counts: every turn in it holds the exact parts.
func gateKeywords(kw []keywordHit, q query, meaning bool) []keywordHit {
	if q.isExact() || meaning {
		return kw
	}
	for _, h := range kw {
		if h.half {
			return kw
		}
	}
	return nil
}

// keywordMatch runs one FTS5 expression within scope, best BM25 first.
func keywordMatch(ctx context.Context, s *store.Store, m string, sc Scope) ([]keywordHit, error) {
	// Unscoped, the keyword index answers alone: joining turns and sessions
	// would read both rows of every match before the sort (measured: a
	// cold keyword recall at 100k turns went from 127 ms to 72 ms, p50).
	query := `SELECT rowid, bm25(turns_fts, ` + bm25Weights + `) AS score FROM turns_fts
		WHERE turns_fts MATCH ? ORDER BY score LIMIT ?`
	args := []any{m}
	if sc.filtered() || (sc.excludesSubagents() && hasSubagents(ctx, s)) {
		where, wargs := sc.Sql()
		query = `SELECT t.id, bm25(turns_fts, ` + bm25Weights + `) AS score
			FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN sessions s ON s.id = t.session_id
			WHERE turns_fts MATCH ? AND ` + where + ` ORDER BY score LIMIT ?`
		args = append(args, wargs...)
	}
	rows, err := s.Read().QueryContext(ctx, query, append(args, keywordDepth*2)...)
	if err != nil {
		return nil, fmt.Errorf("store: keyword query %q: %w", m, err)
	}
	defer rows.Close()
	var hits []keywordHit
	for rows.Next() {
		var h keywordHit
		if err := rows.Scan(&h.turnID, &h.bm25); err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// mergeHits is first, then the hits of rest that first lacks, in order.
func mergeHits(first, rest []keywordHit) []keywordHit {
	seen := make(map[int64]bool, len(first))
	for _, h := range first {
		seen[h.turnID] = true
	}
	for _, h := range rest {
		if !seen[h.turnID] {
			first = append(first, h)
		}
	}
	return first
}

// markLiteral reads the hits' text and records to see which hold an exact
// part as typed, and which are records only.
func markLiteral(ctx context.Context, s *store.Store, q query, hits []keywordHit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]string, len(hits))
	at := map[int64]int{}
	for i, h := range hits {
		ids[i] = strconv.FormatInt(h.turnID, 10)
		at[h.turnID] = i
	}
	rows, err := s.Read().QueryContext(ctx, `SELECT id, files, commands, user, assistant FROM turns WHERE id IN (`+strings.Join(ids, ",")+`)`)
	if err != nil {
		return fmt.Errorf("store: reading keyword hits: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var files, commands, user, assistant string
		if err := rows.Scan(&id, &files, &commands, &user, &assistant); err != nil {
			return err
		}
		h := &hits[at[id]]
		h.literal = literal(q.exact, files, commands, user, assistant)
		h.bare = user == "" && assistant == ""
	}
	return rows.Err()
}

// literal reports whether a record is one of the exact parts (or ends in
// it, for a path given shorter), or the text contains one as typed.
func literal(exact []string, files, commands, user, assistant string) bool {
	for _, e := range exact {
		for _, r := range append(store.SplitLines(files), store.SplitLines(commands)...) {
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

// literalFirst orders the hits holding an exact part as typed first, and
// among them the turns with a conversation before bare records: the turn
// that edited query.go says more than the /add that put it in the chat.
// BM25 order is kept otherwise.
func literalFirst(h []keywordHit) {
	class := func(x keywordHit) int {
		switch {
		case x.literal && !x.bare:
			return 0
		case x.literal:
			return 1
		}
		return 2
	}
	sort.SliceStable(h, func(i, j int) bool { return class(h[i]) < class(h[j]) })
}

// hasSubagents reports whether the store holds a subagent session, which
// an unscoped keyword recall must then join sessions to leave out.
func hasSubagents(ctx context.Context, s *store.Store) bool {
	var n int
	err := s.Read().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE subagent = 1)`).Scan(&n)
	return err != nil || n == 1
}
