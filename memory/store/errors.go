package store

import (
	"errors"
)

// ErrNoSession reports a session ID the store does not hold.
var ErrNoSession = errors.New("no such session")
