package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// LockFile is the file in the data directory whose lock a running service
// holds for its whole life, so that one data directory has one service:
// a second 'deja serve' is refused, and a cold recall starts none while
// the lock is held. The system drops the lock when the process ends,
// however it ends, so a killed service never leaves a lock behind.
const LockFile = "serve.lock"

// LockFDEnv names the environment variable by which a recall that took
// the lock hands it to the service it starts (StartBackground): the
// descriptor number the lock is open on in the new process.
const LockFDEnv = "DEJA_SERVE_LOCK_FD"

// ServiceLock is a held service lock; Close releases it.
type ServiceLock struct{ f *os.File }

// Close releases the lock.
func (l *ServiceLock) Close() error { return l.f.Close() }

// TryLock takes dataDir's service lock without waiting. It returns nil
// and no error when another process holds it.
func TryLock(dataDir string) (*ServiceLock, error) {
	f, err := os.OpenFile(filepath.Join(dataDir, LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("serve: opening the service lock: %w", err)
	}
	ok, err := lockFile(f)
	if err != nil || !ok {
		f.Close()
		return nil, err
	}
	return &ServiceLock{f: f}, nil
}

// InheritedLock returns the lock a starting recall handed down
// (LockFDEnv), or nil when there is none. The variable is cleared so
// nothing this process starts believes it holds the lock.
func InheritedLock() *ServiceLock {
	v := os.Getenv(LockFDEnv)
	if v == "" {
		return nil
	}
	os.Unsetenv(LockFDEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	f := os.NewFile(uintptr(fd), LockFile)
	if f == nil {
		return nil
	}
	return &ServiceLock{f: f}
}

// Held reports whether a service holds dataDir's lock now.
func Held(dataDir string) bool {
	l, err := TryLock(dataDir)
	if err != nil {
		return false
	}
	if l == nil {
		return true
	}
	l.Close()
	return false
}
