package recall

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/store"
)

// recordTier is how closely a turn is about a file a file lookup names,
// best first: the user asking "which turn edited query.go" means the turn
// that changed it, then the turn that asked about it; a turn that only
// added the file to the chat is the least of them.
type recordTier int

const (
	tierEdited   recordTier = iota // a record of the turn edited the file
	tierAsked                      // the question names it
	tierAnswered                   // the answer names it, or the agent read it
	tierAdded                      // only a record of adding it to the chat
)

// filePaths are the query's exact parts that are file paths when the query
// is a file lookup: paths and nothing else to rank by (no other words, no
// command); nil for any other query, whose order the tiers leave alone.
func (q query) filePaths() []string {
	if len(q.words) > 0 {
		return nil
	}
	var paths []string
	for _, e := range q.exact {
		if strings.ContainsAny(e, " \t") || !pathLike.MatchString(e) {
			return nil
		}
		paths = append(paths, strings.ToLower(e))
	}
	return paths
}

// byRecord orders a file lookup's ranked turns by their record tier,
// keeping the ranking's order within a tier. Other queries come back as
// they are.
func byRecord(ctx context.Context, s *store.Store, q query, ranked []fused) ([]fused, error) {
	paths := q.filePaths()
	if len(paths) == 0 || len(ranked) < 2 {
		return ranked, nil
	}
	ids := make([]string, len(ranked))
	for i, f := range ranked {
		ids[i] = strconv.FormatInt(f.turnID, 10)
	}
	rows, err := s.Read().QueryContext(ctx, `SELECT id, user, assistant, files, actions FROM turns WHERE id IN (`+strings.Join(ids, ",")+`)`)
	if err != nil {
		return nil, fmt.Errorf("store: reading records: %w", err)
	}
	defer rows.Close()
	tiers := make(map[int64]recordTier, len(ranked))
	for rows.Next() {
		var id int64
		var user, assistant, files, actions string
		if err := rows.Scan(&id, &user, &assistant, &files, &actions); err != nil {
			return nil, err
		}
		tiers[id] = tierOf(paths, user, assistant, store.SplitLines(files), store.SplitLines(actions))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := append([]fused(nil), ranked...)
	sort.SliceStable(out, func(i, j int) bool { return tiers[out[i].turnID] < tiers[out[j].turnID] })
	return out, nil
}

// tierOf is a turn's best tier over the looked-up paths. A turn that
// names none of them in any form (the literal matched another spelling)
// ranks with the bare adds.
func tierOf(paths []string, user, assistant string, files, actions []string) recordTier {
	best := tierAdded
	user, assistant = strings.ToLower(user), strings.ToLower(assistant)
	for _, p := range paths {
		for i, f := range files {
			if !samePath(strings.ToLower(f), p) {
				continue
			}
			switch {
			case i < len(actions) && harness.FileAction(actions[i]) == harness.Edited:
				return tierEdited
			case i >= len(actions) || actions[i] == "" || harness.FileAction(actions[i]) == harness.Read:
				// read by the agent, or a store indexed before actions
				// were kept (schema 2), where an edit cannot be told
				best = min(best, tierAnswered)
			}
		}
		switch {
		case strings.Contains(user, p):
			best = min(best, tierAsked)
		case strings.Contains(assistant, p):
			best = min(best, tierAnswered)
		}
	}
	return best
}

// samePath reports whether a record's path is the looked-up one: the same,
// or ending in it at a directory boundary (query.go finds
// internal/db/query.go).
func samePath(record, lookup string) bool {
	lookup = strings.TrimPrefix(lookup, "./")
	return record == lookup || strings.HasSuffix(record, "/"+lookup)
}
