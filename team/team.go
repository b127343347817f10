package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/redact"
	"github.com/deja-dev/deja/memory/store"
)

// Options configure a member of a team.
type Options struct {
	// URL is the NATS server URL, or several separated by commas.
	URL string
	// Creds is a NATS credentials file; empty connects without one.
	Creds string
	// CA is a PEM file of the certificate authority that signed the
	// server's certificate, for a server the system does not trust.
	CA string
	// Name is the team.
	Name string
	// Projects are the local project directories whose turns are shared.
	Projects []string
	// User names the person in headers and subjects; empty is the login name.
	User string
	// Host names this machine; empty is the host name. The store adds a
	// suffix of its own, so two stores on one host are two members.
	Host string
	// Version is deja's version, sent in a header.
	Version string
	// Embedder embeds received turns locally; nil leaves it to 'deja index'.
	Embedder embed.Embedder
	// Budget is the most characters of one chunk's embedded text.
	Budget int
	// Lock tunes how the store's writer lock is waited for.
	Lock store.LockOptions
	// Replicas is the stream's replica count when this member creates
	// it; 0 is 1. A clustered team uses 3.
	Replicas int
	// AckWait is how long the server waits for this member to confirm a
	// folded message before it delivers it again; 0 is 30 s.
	AckWait time.Duration
	// Timeout bounds connecting and each request to the server; 0 is 10 s.
	Timeout time.Duration
}

// Member is a store connected to its team's stream.
type Member struct {
	store   *store.Store
	opts    Options
	machine string
	nc      *nats.Conn
	js      jetstream.JetStream
	stream  jetstream.Stream
	refused *refusals
}

// Connect connects the store to its team: it names the machine, connects
// to the server and finds the team's stream, creating it when it does not
// exist yet. The caller closes the member.
func Connect(ctx context.Context, sto *store.Store, opts Options) (*Member, error) {
	m, err := connect(ctx, sto, opts)
	return m, masked(err)
}

func connect(ctx context.Context, sto *store.Store, opts Options) (*Member, error) {
	if opts.URL == "" {
		return nil, errors.New("team: no server: set team.url (DEJA_TEAM_URL), for example nats://127.0.0.1:4222")
	}
	if opts.Name == "" {
		opts.Name = "default"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.AckWait <= 0 {
		opts.AckWait = 30 * time.Second
	}
	if opts.User == "" {
		opts.User = loginName()
	}
	if opts.Host == "" {
		opts.Host, _ = os.Hostname()
	}
	machine, err := sto.TeamMachine(ctx, token(opts.Host))
	if err != nil {
		return nil, err
	}
	refused := &refusals{}
	no := []nats.Option{nats.Name("deja " + machine), nats.Timeout(opts.Timeout), nats.MaxReconnects(-1),
		nats.ErrorHandler(refused.handle)}
	tlsOpts, remote, err := tlsOptions(opts.URL, opts.CA)
	if err != nil {
		return nil, err
	}
	no = append(no, tlsOpts...)
	if opts.Creds != "" {
		if _, err := os.Stat(opts.Creds); err != nil {
			return nil, fmt.Errorf("team: credentials %s: %w (fix team.creds)", opts.Creds, err)
		}
		no = append(no, nats.UserCredentials(opts.Creds))
	}
	nc, err := nats.Connect(opts.URL, no...)
	if err != nil && remote != "" && tlsFailure(err) {
		return nil, fmt.Errorf("team: connecting to %s: %w (%s is beyond loopback, where deja speaks to a server only over TLS: give the server a tls block (docs/team.md), and set team.ca to its CA file if this machine does not trust it)", opts.URL, err, remote)
	}
	if err != nil {
		return nil, fmt.Errorf("team: connecting to %s: %w (is the server running? 'deja team status' shows the configuration)", opts.URL, err)
	}
	// An acknowledgement that never comes (a server that lost its quorum)
	// fails the publish after Timeout rather than holding up the index.
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(opts.Timeout))
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("team: %w", err)
	}
	m := &Member{store: sto, opts: opts, machine: machine, nc: nc, js: js, refused: refused}
	if err := m.findStream(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return m, nil
}

// Machine is the name this store has in the team.
func (m *Member) Machine() string { return m.machine }

// Close disconnects from the server.
func (m *Member) Close() { m.nc.Close() }

func (m *Member) findStream(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	name := streamName(m.opts.Name)
	st, err := m.js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		replicas := max(m.opts.Replicas, 1)
		st, err = m.js.CreateStream(ctx, jetstream.StreamConfig{
			Name:        name,
			Description: "deja team memory: redacted turns and tombstones of team " + m.opts.Name,
			Subjects:    []string{teamSubjects(m.opts.Name)},
			Storage:     jetstream.FileStorage,
			Replicas:    replicas,
			// A republish within the window is dropped by its message ID.
			Duplicates: 10 * time.Minute,
		})
	}
	if err != nil {
		return fmt.Errorf("team: stream %s: %w (the server needs JetStream enabled: nats-server -js)", name, err)
	}
	m.stream = st
	return nil
}

// masked keeps the credentials in team.url out of an error's text, as
// nats.go and net/url quote the URL they were given; the error still
// wraps err. Every error this package returns goes through it.
func masked(err error) error {
	if err == nil {
		return nil
	}
	return maskedError{err}
}

type maskedError struct{ err error }

func (e maskedError) Error() string { return redact.URLCredentials(e.err.Error()) }
func (e maskedError) Unwrap() error { return e.err }

func loginName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}
