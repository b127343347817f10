package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTryLockIsExclusive: while one holder has the service lock nobody
// else takes it, even from the same process, and it is free again once
// released.
func TestTryLockIsExclusive(t *testing.T) {
	dir := t.TempDir()
	l, err := TryLock(dir)
	if err != nil || l == nil {
		t.Fatalf("first lock: %v %v", l, err)
	}
	if !Held(dir) {
		t.Error("Held says the lock is free while it is held")
	}
	if l2, err := TryLock(dir); err != nil || l2 != nil {
		t.Fatalf("a second lock was taken while the first is held: %v %v", l2, err)
	}
	l.Close()
	if Held(dir) {
		t.Error("Held says the lock is held after it was released")
	}
}

// TestWatchStopsWhenIdleOrReplaced: a service stops once no request came
// for its idle time, never while one is in flight, and when its store's
// file is replaced.
func TestWatchStopsWhenIdleOrReplaced(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "deja.db")
	os.WriteFile(db, []byte("a"), 0o600)
	a := NewActivity()
	if why := a.Watch(context.Background(), dir, StoreFile(dir), time.Millisecond, time.Millisecond); !strings.HasPrefix(why, "idle for") {
		t.Errorf("idle: %q", why)
	}

	// A request in flight holds it up: only the store's replacement ends
	// this watch.
	a.active.Add(1)
	done := make(chan string, 1)
	opened := StoreFile(dir)
	go func() { done <- a.Watch(context.Background(), dir, opened, time.Millisecond, time.Millisecond) }()
	time.Sleep(20 * time.Millisecond)
	select {
	case why := <-done:
		t.Fatalf("stopped with a request in flight: %q", why)
	default:
	}
	os.WriteFile(db+".new", []byte("b"), 0o600)
	os.Rename(db+".new", db)
	if why := <-done; !strings.Contains(why, "removed or replaced") {
		t.Errorf("replaced store: %q", why)
	}
}

// TestWatchSeesAReplacementBeforeItStarts: a store replaced between the
// service opening it and its watch starting (a loaded machine runs the
// watch's goroutine late) still stops the service; the watch compares with
// the file the service opened, not with what it finds when it starts.
func TestWatchSeesAReplacementBeforeItStarts(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "deja.db")
	os.WriteFile(db, []byte("a"), 0o600)
	opened := StoreFile(dir)
	os.WriteFile(db+".new", []byte("b"), 0o600)
	os.Rename(db+".new", db)
	a := NewActivity()
	a.active.Add(1)
	if why := a.Watch(context.Background(), dir, opened, 0, time.Millisecond); !strings.Contains(why, "removed or replaced") {
		t.Errorf("store replaced before the watch: %q", why)
	}
}
