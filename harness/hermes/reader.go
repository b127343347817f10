package hermes

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"

	"github.com/deja-dev/deja/harness"
)

// Name is Hermes Agent's name among the harnesses.
const Name = "hermes"

// storeName is the file name of a Hermes home's store.
const storeName = "state.db"

// Reader is Hermes Agent as a harness: a store it reads whole, each
// session with a marker of its latest change.
type Reader struct{}

var (
	_ harness.WholeReader = Reader{}
	_ harness.Resumer     = Reader{}
)

// Name returns "hermes".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shape sessionID makes.
func (Reader) ValidID(id string) bool {
	_, _, ok := splitID(id)
	return ok
}

// Discover finds the stores; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var sqliteMagic = []byte("SQLite format 3\x00")

// errNotStore is Sniff's answer for a file that is not a Hermes store.
var errNotStore = errors.New("not a Hermes Agent store (state.db, SQLite)")

// Sniff accepts a SQLite file named state.db.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Base(path) == storeName && bytes.HasPrefix(head, sqliteMagic) {
		return nil
	}
	return errNotStore
}

// Read reads every session of the store at path (ReadStore).
func (Reader) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	return ReadStore(ctx, path, opts.Unchanged)
}

// ResumeCommand is `hermes --resume <id>`, which Hermes prints when a
// session ends ("Resume this session with:"), with --profile for a
// profile's session, run in the session's directory where it has one:
// Hermes's terminal and file tools start there.
func (Reader) ResumeCommand(id, project string) string {
	profile, sid, ok := splitID(id)
	if !ok {
		return ""
	}
	cmd := "hermes"
	if profile != "" {
		cmd += " --profile " + harness.ShellQuote(profile)
	}
	cmd += " --resume " + harness.ShellQuote(sid)
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}
