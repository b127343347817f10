//go:build !windows

package serve

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock on f without waiting. flock belongs
// to the open file, so a descriptor passed to a child process keeps the
// lock after the parent closes its own.
func lockFile(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EWOULDBLOCK):
		return false, nil
	}
	return false, fmt.Errorf("serve: locking %s: %w", f.Name(), err)
}
