package recall

import (
	"context"
	"errors"
	"fmt"
	"github.com/deja-dev/deja/memory/store"
	"runtime"
	"strconv"
	"strings"
)

// turnFacts is what ranking reads of a turn besides its vectors and its
// keywords, and the same for every query: a warm store keeps it, so a
// recall reads the turns table only for the candidates it has not seen.
// At 100k turns a query's semantic list holds 1,500 to 12,000 turns, and
// reading their sizes and questions took 100-250 ms a recall.
type turnFacts struct {
	chars int
	// words are the tokens of the question's first shapePrefix
	// characters (the near-verbatim test, see fuse), joined (joinedWords).
	words string
	// content is the number of content words of the question, and text
	// the words of the question and answer, joined, for a turn of at most
	// thinChars (the thin test, see dropThin); longer turns are never
	// thin at the default limit.
	content int
	text    string
	short   bool
	// at is when the turn was asked, in Unix nanoseconds: its own time,
	// else its session's start; 0 when neither is known (the time a
	// query names, see blend).
	at int64
}

// turnFacts returns the facts of the turns ids, reading those the store
// does not hold yet.
func loadTurnFacts(ctx context.Context, s *store.Store, ids []int64) (map[int64]*turnFacts, error) {
	out := make(map[int64]*turnFacts, len(ids))
	var missing []string
	rc(s).mu.Lock()
	if rc(s).turns == nil {
		rc(s).turns = map[int64]*turnFacts{}
	}
	for _, id := range ids {
		if f, ok := rc(s).turns[id]; ok {
			out[id] = f
		} else if _, dup := out[id]; !dup {
			out[id] = nil
			missing = append(missing, strconv.FormatInt(id, 10))
		}
	}
	rc(s).mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	// A cold recall reads thousands: the parts on every core, each on its
	// own connection (WAL readers do not wait for one another).
	parts := min(runtime.GOMAXPROCS(0), (len(missing)+factsPerPart-1)/factsPerPart)
	reads := make([]map[int64]*turnFacts, parts)
	errs := make([]error, parts)
	onEveryCore(parts, func(i int) {
		reads[i], errs[i] = readTurnFacts(ctx, s, missing[i*len(missing)/parts:(i+1)*len(missing)/parts])
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	rc(s).mu.Lock()
	for _, read := range reads {
		for id, f := range read {
			rc(s).turns[id] = f
			out[id] = f
		}
	}
	rc(s).mu.Unlock()
	for id, f := range out {
		if f == nil {
			delete(out, id) // forgotten between the lists and now
		}
	}
	return out, nil
}

// factsPerPart is the fewest turns worth a query of their own in
// turnFacts.
const factsPerPart = 500

// turnIDs lists the store's turns, for preloading their facts.
func turnIDs(ctx context.Context, s *store.Store) ([]int64, error) {
	ids, err := store.QueryColumn[int64](ctx, s.Read(), `SELECT id FROM turn_rows ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: listing turns: %w", err)
	}
	return ids, nil
}

// factsPiece is how many turns' facts a preload reads at a time.
const factsPiece = 4000

// preloadFacts reads the facts of the turns ids that the store does not
// hold yet, a piece at a time, each piece between lock and unlock (a
// long-running process's hold on the store, see Warm), and stops once keep
// says the store changed since ids were listed.
func preloadFacts(ctx context.Context, s *store.Store, ids []int64, lock, unlock func(), keep func() bool) error {
	for len(ids) > 0 {
		piece := ids[:min(factsPiece, len(ids))]
		ids = ids[len(piece):]
		lock()
		if !keep() {
			unlock()
			return nil
		}
		_, err := loadTurnFacts(ctx, s, piece)
		unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// readTurnFacts reads the facts of the turns ids from the turns table.
func readTurnFacts(ctx context.Context, s *store.Store, ids []string) (map[int64]*turnFacts, error) {
	rows, err := s.Read().QueryContext(ctx, `SELECT t.id, t.chars, substr(t.user, 1, ?),
		CASE WHEN t.chars <= ? THEN t.user || ' ' || t.assistant END,
		coalesce(nullif(t.time_ns, 0), s.started_ns, 0)
		FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id IN (`+strings.Join(ids, ",")+`)`, shapePrefix, thinChars)
	if err != nil {
		return nil, fmt.Errorf("store: reading candidates: %w", err)
	}
	defer rows.Close()
	read := map[int64]*turnFacts{}
	for rows.Next() {
		var id int64
		var user string
		var text *string
		f := &turnFacts{}
		if err := rows.Scan(&id, &f.chars, &user, &text, &f.at); err != nil {
			return nil, err
		}
		f.words = joinedWords(user)
		if text != nil {
			f.short = true
			for w, rest, ok := nextWord(f.words); ok; w, rest, ok = nextWord(rest) {
				if !stopword[w] && len(w) > 1 {
					f.content++
				}
			}
			f.text = joinedWords(*text)
		}
		read[id] = f
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return read, nil
}
