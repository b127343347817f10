package team

// Dev is a development NATS server that DevServer started.
type Dev interface {
	// ClientURL is the address members connect to.
	ClientURL() string
	// Shutdown stops the server and waits for it.
	Shutdown()
}

// NATSServerModule is the nats-server release 'deja team serve-dev' builds
// with the Go toolchain when no nats-server program is at hand: the one
// go.mod names (TestNATSServerModuleMatchesGoMod).
const NATSServerModule = "github.com/nats-io/nats-server/v2@v2.15.3"
