package team

import (
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// DevServer starts a NATS server with JetStream for trying team memory on
// one machine: it listens on loopback only, without TLS or accounts, and
// keeps its stream in dir. Port 0 picks a free port. A team beyond one
// machine runs nats-server itself, with TLS and the accounts docs/team.md
// shows.
func DevServer(dir string, port int) (*server.Server, error) {
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
