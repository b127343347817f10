//go:build unix

package userfile

import (
	"errors"
	"syscall"
)

// noReader reports whether a non-blocking open of a named pipe for
// writing failed because no reader has it open yet.
func noReader(err error) bool { return errors.Is(err, syscall.ENXIO) }
