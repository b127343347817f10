package recall

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/deja-dev/deja/memory/store"
	"sync"
	"sync/atomic"
	"time"
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
	*store.Store

	// mu guards conn and version. data_version counts per connection, so
	// it is always read on this one held connection.
	mu      sync.Mutex
	conn    *sql.Conn
	version int64

	// loading is held for reading by recalls and for writing while the
	// collections are dropped, so a recall that read the old vectors cannot
	// put them back after the drop.
	loading sync.RWMutex

	// ready holds the embedders whose vectors a load behind the recalls
	// (loadBehind) has loaded since the store last changed, and loads the
	// loads under way; closed says Close has begun. They are guarded by
	// readyMu, taken after loading, never before. Until an embedder is
	// ready, a recall by meaning is answered one-shot (RecallOptions.Once,
	// the same results), so a new service's first recall, or the first
	// after an index run, does not wait for the whole load.
	readyMu sync.Mutex
	ready   map[string]bool
	loads   map[string]*behindLoad
	closed  bool
	// gen counts the changes Refresh saw, so a load of facts stops at
	// one.
	gen atomic.Int64
	// behind is what the loads run under: Close cancels it and waits.
	behind     context.Context
	stopBehind context.CancelFunc
	running    sync.WaitGroup
	// beforeLoad, when set, runs before each load behind the recalls, so
	// a test can hold one back.
	beforeLoad func(ctx context.Context)
	// active counts the recalls under way, and idleSince is when the last
	// one ended (or the store opened), in Unix nanoseconds: the loads
	// behind the recalls wait for a quiet moment (waitQuiet).
	active    atomic.Int64
	idleSince atomic.Int64
}

// A load behind the recalls starts once no recall has run for loadQuiet,
// or after loadPatience whatever the traffic, and its reading of facts
// waits, a piece at a time, for the recalls under way to end (for up to
// loadPatience each). The load keeps both cores busy for about a second at
// 100k turns, and the recall it would compete with is the one a load
// behind it is for: at 100k turns a new service's first recall took 755 ms
// competing with the load, and 364-423 ms alone (one-shot in both cases,
// a one-off timing of 'deja serve' and one 'deja recall', not kept);
// waiting for the load, 580 ms (bench/perf at 15aa8cd).
const (
	loadQuiet    = 150 * time.Millisecond
	loadPatience = 2 * time.Second
)

// waitQuiet returns once no recall has run for quiet, after patience, or
// when ctx ends.
func (w *Warm) waitQuiet(ctx context.Context, quiet, patience time.Duration) {
	deadline := time.Now().Add(patience)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if w.active.Load() == 0 && time.Since(time.Unix(0, w.idleSince.Load())) >= quiet {
			return
		}
		t := time.NewTimer(5 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

// behindLoad is one load of an embedder's vectors and every turn's facts
// behind the recalls. err is why it failed, set before done closes.
type behindLoad struct {
	done chan struct{}
	gen  int64
	err  error
}

// warmIdleConns is how many database connections a warm store keeps open
// for concurrent recalls.
const warmIdleConns = 16

// OpenWarm opens the store in dir for a long-running process.
func OpenWarm(ctx context.Context, dir string) (*Warm, error) {
	// SQLite's default page cache: a service's keyword queries come back
	// to the same pages.
	s, err := store.OpenWithCache(ctx, dir, 0)
	if err != nil {
		return nil, err
	}
	// Keep connections open between requests: database/sql keeps two idle
	// by default, and with several clients each recall past the second
	// opened SQLite afresh (schema read, pragmas), which cost more than
	// the recall itself.
	s.KeepIdleConns(warmIdleConns)
	conn, err := s.ReadConn(ctx)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	w := &Warm{Store: s, conn: conn, ready: map[string]bool{}, loads: map[string]*behindLoad{}}
	w.behind, w.stopBehind = context.WithCancel(context.Background())
	w.idleSince.Store(time.Now().UnixNano())
	if w.version, err = w.dataVersion(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Close ends the loads behind the recalls and releases the held
// connection and the database.
func (w *Warm) Close() error {
	w.readyMu.Lock()
	w.closed = true
	w.readyMu.Unlock()
	w.stopBehind()
	w.running.Wait()
	w.conn.Close()
	return w.Store.Close()
}

// Recall is Store.Recall over collections that reflect the store's last
// commit. Until the embedder's vectors are loaded, it answers one-shot
// and has them loaded behind it (see ready).
func (w *Warm) Recall(ctx context.Context, opts Options) (*Answer, error) {
	w.active.Add(1)
	defer func() {
		w.idleSince.Store(time.Now().UnixNano())
		w.active.Add(-1)
	}()
	if _, err := w.Refresh(ctx); err != nil {
		return nil, err
	}
	w.loading.RLock()
	defer w.loading.RUnlock()
	if opts.Embedder != nil && opts.Mode != Keyword {
		if identity := opts.Embedder.Identity(); !w.isReady(identity) {
			opts.Once, opts.scan = true, true
			w.loadBehind(identity)
		}
	}
	return Recall(ctx, w.Store, opts)
}

// Preload has the embedder's vectors and collections, then every turn's
// ranking facts and the vocabulary, loaded (Store.Preload), unless they are, and returns once
// they are, or with what failed.
func (w *Warm) Preload(ctx context.Context, identity string) error {
	if _, err := w.Refresh(ctx); err != nil {
		return err
	}
	w.loading.RLock()
	l := w.loadBehind(identity)
	w.loading.RUnlock()
	select {
	case <-l.done:
		return l.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *Warm) isReady(identity string) bool {
	w.readyMu.Lock()
	defer w.readyMu.Unlock()
	return w.ready[identity]
}

// finished is a load with nothing to do.
var finished = func() *behindLoad {
	l := &behindLoad{done: make(chan struct{})}
	close(l.done)
	return l
}()

// loadBehind starts loading the embedder's vectors and every turn's facts
// on a goroutine of its own, unless a load of them since the store last
// changed is under way (it returns that one) or they are loaded. The
// caller holds loading for reading, so a change to the store cannot come
// between its look at ready and this.
func (w *Warm) loadBehind(identity string) *behindLoad {
	w.readyMu.Lock()
	defer w.readyMu.Unlock()
	if w.closed {
		return &behindLoad{done: finished.done, err: fmt.Errorf("store: closed")}
	}
	gen := w.gen.Load()
	if l, ok := w.loads[identity]; ok && l.gen == gen {
		return l
	}
	if w.ready[identity] {
		return finished
	}
	l := &behindLoad{done: make(chan struct{}), gen: gen}
	w.loads[identity] = l
	w.running.Add(1)
	go func() {
		defer w.running.Done()
		defer func() {
			w.readyMu.Lock()
			if w.loads[identity] == l {
				delete(w.loads, identity)
			}
			w.readyMu.Unlock()
			close(l.done)
		}()
		if w.beforeLoad != nil {
			w.beforeLoad(w.behind)
		}
		w.waitQuiet(w.behind, loadQuiet, loadPatience)
		ids, gen, err := w.loadVectors(identity)
		if err != nil {
			l.err = err
			return
		}
		// The turns' facts next, a piece at a time, so that a change to
		// the store waits for one piece, not for all of them.
		lock := func() {
			w.waitQuiet(w.behind, 0, loadPatience)
			w.loading.RLock()
		}
		l.err = preloadFacts(w.behind, w.Store, ids, lock, w.loading.RUnlock, func() bool { return w.gen.Load() == gen })
		if l.err == nil {
			// The vocabulary last: it serves only queries with a word no
			// turn holds. Read under loading, so a change to the store
			// drops it after, never before, it is set.
			lock()
			if w.gen.Load() == gen {
				l.err = PreloadVocabulary(w.behind, w.Store)
			}
			w.loading.RUnlock()
		}
	}()
	return l
}

// loadVectors loads the embedder's vectors and collections, marks them
// ready, and returns the store's turns and the store's generation
// (gen) they are of. loading is held until ready is set: Refresh drops
// what was loaded, and ready with it, only before or after.
func (w *Warm) loadVectors(identity string) ([]int64, int64, error) {
	w.loading.RLock()
	defer w.loading.RUnlock()
	err := preloadVectors(w.behind, w.Store, identity)
	var ids []int64
	if err == nil {
		ids, err = turnIDs(w.behind, w.Store)
	}
	w.readyMu.Lock()
	defer w.readyMu.Unlock()
	if err == nil {
		w.ready[identity] = true
	}
	return ids, w.gen.Load(), err
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
	w.readyMu.Lock()
	clear(w.ready)
	w.gen.Add(1)
	w.readyMu.Unlock()
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
