//go:build devnats

package team

import (
	"context"
	"io"

	"github.com/deja-dev/deja/internal/devnats"
)

// DevServer starts a NATS server with JetStream for trying team memory on
// one machine, inside this process: this deja was built with the devnats
// tag. It listens on loopback only, without TLS or accounts, and keeps its
// stream in dir; port 0 picks a free port.
func DevServer(_ context.Context, dir string, port int, _ io.Writer) (Dev, error) {
	return devnats.Start(dir, port)
}
