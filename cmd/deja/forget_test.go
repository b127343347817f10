package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/store"
)

// TestForgetWaitsAsToldForTheLock holds the store's writer lock as a
// running 'deja index' does: forget --wait 0 fails at once and says who
// holds it; forget --wait 1m says it waits, and forgets once the lock is
// released.
func TestForgetWaitsAsToldForTheLock(t *testing.T) {
	dataDir := indexedDataDir(t)
	ctx := context.Background()
	lock, err := store.AcquireLock(ctx, dataDir, store.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()

	root := newRootCmd(&IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	root.SetArgs([]string{"forget", "--wait", "0", "20260714T101231"})
	if err := root.ExecuteContext(ctx); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("forget --wait 0 with the lock held = %v, want %v", err, store.ErrLocked)
	}

	stderr, errw := io.Pipe()
	var out strings.Builder
	done := make(chan error, 1)
	go func() {
		root := newRootCmd(&IO{In: strings.NewReader(""), Out: &out, Err: errw})
		root.SetArgs([]string{"forget", "--wait", "1m", "20260714T101231"})
		done <- root.ExecuteContext(ctx)
		errw.Close()
	}()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if !strings.Contains(line, "is writing the store; waiting up to 1m0s") {
		t.Fatalf("forget --wait 1m said %q (%v), want that it waits up to 1m0s", line, err)
	}
	lock.Unlock()
	go io.Copy(io.Discard, stderr)
	if err := <-done; err != nil {
		t.Fatalf("forget after the lock was released: %v", err)
	}
	if !strings.HasPrefix(out.String(), "forgot aider-") {
		t.Errorf("forget printed %q, want the session it forgot", out.String())
	}
}
