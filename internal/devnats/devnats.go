// Package devnats runs a NATS server with JetStream inside the process, on
// loopback, without TLS or accounts. The team tests use it, and so does a
// deja built with the devnats tag for 'deja team serve-dev'; the default
// build leaves the server out (it would be a third of the binary) and
// starts a nats-server program instead (team.DevServer).
package devnats

import (
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start runs the server on 127.0.0.1:port (0 picks a free port), keeping its
// stream in dir, and returns once it accepts connections.
func Start(dir string, port int) (*server.Server, error) {
	if port == 0 {
		port = -1
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("team: creating %s: %w", dir, err)
	}
	s, err := server.NewServer(&server.Options{
		ServerName: "deja-dev", Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true,
	})
	if err != nil {
		return nil, fmt.Errorf("team: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("team: the server on 127.0.0.1:%d did not start (is the port taken? try --port 0)", port)
	}
	return s, nil
}
