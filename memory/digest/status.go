package digest

import (
	"context"
	"fmt"
	"github.com/deja-dev/deja/memory/store"
	"os"
	"path/filepath"
	"time"
)

// Status is what the store holds.
type StoreStatus struct {
	Dir string
	// Bytes is the size of the database and its write-ahead log.
	Bytes    int64
	Files    int
	Projects int
	// Sessions counts the sessions that hold at least one turn: the
	// sessions 'deja sessions' lists and 'deja index' reports.
	Sessions int
	// Empty counts the sessions that hold no turn (an agent started and
	// quit before anything was asked): kept, listed by 'deja sessions
	// --all' only.
	Empty int
	// Subagent counts the sessions a subagent ran, of Sessions; recall and
	// 'deja sessions' leave them out unless asked.
	Subagent int
	// Gone counts sessions that left their file and are kept.
	Gone      int
	Turns     int
	Forgotten int
	Embedders []EmbedderStatus
	// LastIndexed is when a history was last read, zero if never.
	LastIndexed time.Time
}

// EmbedderStatus is one embedder's share of the store.
type EmbedderStatus struct {
	Identity  string
	Dimension int
	// Turns have this embedder's vectors; Lacking do not. NoVector are
	// turns the embedder refused even cut shorter (Store.Unembedded).
	Turns, Lacking, NoVector int
}

// Status counts what the store holds.
func Status(ctx context.Context, s *store.Store) (*StoreStatus, error) {
	st := &StoreStatus{Dir: s.Dir()}
	for _, f := range []string{store.DBFile, store.DBFile + "-wal"} {
		if fi, err := os.Stat(filepath.Join(s.Dir(), f)); err == nil {
			st.Bytes += fi.Size()
		}
	}
	var last *int64
	err := s.Read().QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM files), (SELECT count(DISTINCT project) FROM sessions),
		(SELECT count(*) FROM sessions s WHERE EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id)),
		(SELECT count(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id)),
		(SELECT count(*) FROM sessions s WHERE s.subagent = 1 AND EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id)),
		(SELECT count(*) FROM sessions WHERE present = 0),
		(SELECT count(*) FROM turns), (SELECT count(*) FROM tombstones),
		(SELECT max(indexed_at) FROM files)`).
		Scan(&st.Files, &st.Projects, &st.Sessions, &st.Empty, &st.Subagent, &st.Gone, &st.Turns, &st.Forgotten, &last)
	if err != nil {
		return nil, fmt.Errorf("store: status: %w", err)
	}
	if last != nil {
		st.LastIndexed = time.Unix(0, *last)
	}
	rows, err := s.Read().QueryContext(ctx, `SELECT identity, dimension FROM embedders ORDER BY identity`)
	if err != nil {
		return nil, fmt.Errorf("store: status: %w", err)
	}
	for rows.Next() {
		var e EmbedderStatus
		if err := rows.Scan(&e.Identity, &e.Dimension); err != nil {
			rows.Close()
			return nil, err
		}
		st.Embedders = append(st.Embedders, e)
	}
	rows.Close()
	for i := range st.Embedders {
		e := &st.Embedders[i]
		if e.Lacking, err = s.CountLacking(ctx, e.Identity); err != nil {
			return nil, err
		}
		refused, err := s.Unembedded(ctx, e.Identity)
		if err != nil {
			return nil, err
		}
		e.NoVector = len(refused)
		e.Turns = st.Turns - e.Lacking - e.NoVector
	}
	return st, nil
}
