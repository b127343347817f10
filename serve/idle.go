package serve

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/deja-dev/deja/memory/store"
)

// Activity tracks a service's requests, so that it can stop once none
// came for a while. A request in flight, such as an MCP client's open
// stream, keeps the service up however long it lasts.
type Activity struct {
	last   atomic.Int64
	active atomic.Int64
}

// NewActivity returns an Activity whose idle time starts now.
func NewActivity() *Activity {
	a := &Activity{}
	a.last.Store(time.Now().UnixNano())
	return a
}

// Wrap counts every request h serves.
func (a *Activity) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.active.Add(1)
		defer func() {
			a.last.Store(time.Now().UnixNano())
			a.active.Add(-1)
		}()
		h.ServeHTTP(w, r)
	})
}

// idleFor is how long no request has been in flight, 0 while one is.
func (a *Activity) idleFor(now time.Time) time.Duration {
	if a.active.Load() > 0 {
		return 0
	}
	return now.Sub(time.Unix(0, a.last.Load()))
}

// StoreFile is the store file in dataDir as it is now, nil when there is
// none: a service takes it right after it opens the store, so Watch knows
// the file it serves even when the store is replaced before Watch starts.
func StoreFile(dataDir string) os.FileInfo {
	fi, err := os.Stat(filepath.Join(dataDir, store.DBFile))
	if err != nil {
		return nil
	}
	return fi
}

// Watch returns when the service should stop, saying why: no request
// for idle (0: never for idleness), the store in dataDir removed or
// replaced by a file other than opened (StoreFile when the service opened
// it; nil: never), or ctx done (""). It checks every tick.
func (a *Activity) Watch(ctx context.Context, dataDir string, opened os.FileInfo, idle, tick time.Duration) string {
	st := filepath.Join(dataDir, store.DBFile)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ""
		case now := <-t.C:
			if idle > 0 && a.idleFor(now) >= idle {
				return "idle for " + idle.String()
			}
			if opened == nil {
				continue
			}
			if fi, err := os.Stat(st); err != nil || !os.SameFile(opened, fi) {
				return "the store at " + st + " was removed or replaced"
			}
		}
	}
}
