package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
)

// ledgerTurn is what the store holds of one turn.
type LedgerTurn struct {
	Id   int64
	Hash string
	Line int
}

// ledgerSpan is a session's stored turns among some indexes, and the
// greatest index it has stored (math.MinInt: none).
type LedgerSpan struct {
	ByIndex map[int]LedgerTurn
	Last    int
}

// ledgerTurns returns the stored turns of a session whose indexes lie
// between the least and the greatest of indexes, by turn index, and the
// greatest index the session has stored. A session streamed in pieces
// asks for each piece's turns only: the whole session's, asked for every
// piece, took a 1 GB recording whose 715,463 turns had all moved 14
// minutes to re-index, and held them all each time.
func (s *Store) LedgerTurns(ctx context.Context, session string, indexes []int) (LedgerSpan, error) {
	st := LedgerSpan{ByIndex: map[int]LedgerTurn{}, Last: math.MinInt}
	var last sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT max(turn) FROM turn_rows WHERE session_id = ?`, session).Scan(&last); err != nil {
		return st, fmt.Errorf("store: reading the ledger: %w", err)
	}
	if !last.Valid || len(indexes) == 0 {
		if last.Valid {
			st.Last = int(last.Int64)
		}
		return st, nil
	}
	st.Last = int(last.Int64)
	lo, hi := slices.Min(indexes), slices.Max(indexes)
	rows, err := s.db.QueryContext(ctx, `SELECT turn, id, hash, line FROM turn_rows WHERE session_id = ? AND turn BETWEEN ? AND ?`, session, lo, hi)
	if err != nil {
		return st, fmt.Errorf("store: reading the ledger: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var t LedgerTurn
		if err := rows.Scan(&i, &t.Id, &t.Hash, &t.Line); err != nil {
			return st, err
		}
		st.ByIndex[i] = t
	}
	return st, rows.Err()
}
