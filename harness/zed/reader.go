package zed

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Zed's name among the harnesses.
const Name = "zed"

// IDPrefix starts every Zed session's ID: zed-<thread id>.
const IDPrefix = "zed-"

// storeName is the file name of Zed's thread store.
const storeName = "threads.db"

// Reader is Zed's agent as a harness: one store, read whole, each thread
// with a marker of its latest save.
type Reader struct{}

var _ harness.WholeReader = Reader{}

// Name returns "zed".
func (Reader) Name() string { return Name }

// ValidID reports zed-<thread id>: Zed names a thread by a UUID (a
// session id, Uuid::new_v4), and any id in the token alphabet is taken.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	return ok && harness.IsToken(rest)
}

// Discover finds the store; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var sqliteMagic = []byte("SQLite format 3\x00")

// errNotStore is Sniff's answer for a file that is not Zed's store.
var errNotStore = errors.New("not Zed's thread store (a SQLite file named threads.db, as in ~/.local/share/zed/threads/threads.db)")

// Sniff accepts a SQLite file named threads.db.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Base(path) == storeName && bytes.HasPrefix(head, sqliteMagic) {
		return nil
	}
	return errNotStore
}

// Read reads every thread of the store at path; see ReadStore.
func (Reader) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	return ReadStore(ctx, path, opts.Unchanged, harness.Limits{})
}

var _ harness.ResumeRefuser = Reader{}

// ResumeCommand is always "": Zed has no command line that reopens a
// thread.
func (Reader) ResumeCommand(id, project string) string { return "" }

// ResumeRefusal says how Zed reopens a thread.
func (Reader) ResumeRefusal(id, project string) string {
	return "a Zed agent thread reopens only inside Zed: open its project in Zed and pick the thread from the agent panel's history"
}
