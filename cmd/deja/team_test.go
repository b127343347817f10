package main

import (
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deja-dev/deja/internal/devnats"
)

// natsServer starts a real NATS server with JetStream in the test process,
// on a free loopback port, for the rest of the script, and sets NATS_URL
// to its address.
func natsServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: natsserver")
	}
	s, err := devnats.Start(ts.MkAbs("nats-store"), 0)
	ts.Check(err)
	ts.Defer(s.Shutdown)
	ts.Setenv("NATS_URL", s.ClientURL())
}
