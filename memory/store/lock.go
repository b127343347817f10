package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LockFile is the writer's lock inside the data directory. It holds the
// pid of the process that has it, for the message a waiting writer prints.
const LockFile = "index.lock"

// ErrLocked reports that another process is writing the store.
var ErrLocked = errors.New("store is locked by another deja")

// Lock is the store's single-writer lock, released by Unlock or by the
// holder's death (the operating system drops the file lock).
type Lock struct {
	f *os.File
}

// LockOptions tunes how a writer waits for the lock.
type LockOptions struct {
	// Wait is how long to wait for another writer; zero fails at once.
	Wait time.Duration
	// Waiting is called once, with the holder's pid (0 if unknown), when
	// the lock is taken and the caller will wait.
	Waiting func(pid int)
}

// AcquireLock takes the writer's lock of the data directory dir.
func AcquireLock(ctx context.Context, dir string, opts LockOptions) (*Lock, error) {
	// 0o700 as Open makes it: the store holds what users typed.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil && !Writable(dir) {
		return nil, fmt.Errorf("%w: its data directory %s cannot be written (%v); reading commands work, and writing ones need write permission there (or DEJA_DATA_DIR set to another directory)", ErrReadOnly, dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("lock: opening %s: %w", path, err)
	}
	deadline := time.Now().Add(opts.Wait)
	told := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock: %s: %w", path, err)
		}
		if ok {
			break
		}
		pid := holder(path)
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w: %s is held by pid %d; wait for it to finish or retry with a longer --wait", ErrLocked, path, pid)
		}
		if !told && opts.Waiting != nil {
			opts.Waiting(pid)
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	l.f.Truncate(0)
	err := unlock(l.f)
	l.f.Close()
	l.f = nil
	return err
}

func holder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}
