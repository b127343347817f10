package memory

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// Warm is a store held open by a long-running process (deja mcp, deja
// serve). It keeps the vector collections it loaded between recalls, and
// drops them when another process commits to the store, so an index run
// elsewhere is seen by the next recall without a restart.
//
// Change detection is SQLite's PRAGMA data_version: one integer read, which
// changes whenever another connection commits. A fingerprint such as the
// count and largest turn ID per collection would miss the most common
// change: re-indexing rewrites the last turn of an active session, and the
// rewritten turn takes back the deleted one's ID.
type Warm struct {
	*Store

	// mu guards conn and version. data_version counts per connection, so
	// it is always read on this one held connection.
	mu      sync.Mutex
	conn    *sql.Conn
	version int64

	// loading is held for reading by recalls and for writing while the
	// collections are dropped, so a recall that read the old vectors cannot
	// put them back after the drop.
	loading sync.RWMutex
}

// warmIdleConns is how many database connections a warm store keeps open
// for concurrent recalls.
const warmIdleConns = 16

// OpenWarm opens the store in dir for a long-running process.
func OpenWarm(ctx context.Context, dir string) (*Warm, error) {
	s, err := Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	// Keep connections open between requests: database/sql keeps two idle
	// by default, and with several clients each recall past the second
	// opened SQLite afresh (schema read, pragmas), which cost more than
	// the recall itself.
	s.db.SetMaxIdleConns(warmIdleConns)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	w := &Warm{Store: s, conn: conn}
	if w.version, err = w.dataVersion(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Close releases the held connection and the database.
func (w *Warm) Close() error {
	w.conn.Close()
	return w.Store.Close()
}

// Recall is Store.Recall over collections that reflect the store's last
// commit.
func (w *Warm) Recall(ctx context.Context, opts RecallOptions) (*Recall, error) {
	if _, err := w.Refresh(ctx); err != nil {
		return nil, err
	}
	w.loading.RLock()
	defer w.loading.RUnlock()
	return w.Store.Recall(ctx, opts)
}

// Preload is Store.Preload, so that a new service's first recall is warm.
func (w *Warm) Preload(ctx context.Context, identity string) error {
	if _, err := w.Refresh(ctx); err != nil {
		return err
	}
	w.loading.RLock()
	defer w.loading.RUnlock()
	return w.Store.Preload(ctx, identity)
}

// Refresh drops the loaded collections when another process committed to
// the store since the last look, and reports whether it did. The next
// recall loads what it needs again.
func (w *Warm) Refresh(ctx context.Context) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	v, err := w.dataVersion(ctx)
	if err != nil {
		return false, err
	}
	if v == w.version {
		return false, nil
	}
	w.loading.Lock()
	w.Store.Invalidate()
	w.version = v
	w.loading.Unlock()
	return true, nil
}

func (w *Warm) dataVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := w.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: reading data_version: %w", err)
	}
	return v, nil
}
