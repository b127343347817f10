package crush

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Crush's name among the harnesses.
const Name = "crush"

// IDPrefix starts every Crush session's ID: crush-<session id>.
const IDPrefix = "crush-"

// storeName is the file name of every Crush store.
const storeName = "crush.db"

// Reader is Crush as a harness: a store per project, read whole, each
// session with a marker of its latest change.
type Reader struct{}

var _ harness.WholeReader = Reader{}

// Name returns "crush".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shapes this package gives:
// crush-<uuid> for a session the user opened, crush-<uuid>.<call id> for a
// sub-agent's (Crush names it <message id>$$<tool call id>, and '$' is
// outside the alphabet an ID keeps to).
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok {
		return false
	}
	msg, call, sub := strings.Cut(rest, ".")
	return harness.IsUUID(msg) && (!sub || harness.IsToken(call))
}

// sessionID is the deja ID of a Crush session id, "" when it has neither
// shape ValidID takes.
func sessionID(crushID string) string {
	id := IDPrefix + strings.Replace(crushID, "$$", ".", 1)
	if !(Reader{}).ValidID(id) {
		return ""
	}
	return id
}

// Discover finds the stores; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var sqliteMagic = []byte("SQLite format 3\x00")

// errNotStore is Sniff's answer for a file that is not Crush's store.
var errNotStore = errors.New("not a Crush store (a SQLite file named crush.db, as in <project>/.crush/crush.db)")

// Sniff accepts a SQLite file named crush.db.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Base(path) == storeName && bytes.HasPrefix(head, sqliteMagic) {
		return nil
	}
	return errNotStore
}

// Read reads every session of the store at path; see ReadStore.
func (Reader) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	return ReadStore(ctx, path, opts.Unchanged)
}

var _ harness.ResumeRefuser = Reader{}

// ResumeCommand is `crush --session <id>` run in the session's project,
// where Crush looks for the .crush directory that holds it; "" for a
// sub-agent's session or one whose project is not known.
func (Reader) ResumeCommand(id, project string) string {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || !harness.IsUUID(rest) || project == "" {
		return ""
	}
	return "cd " + harness.ShellQuote(project) + " && crush --session " + rest
}

// ResumeRefusal says why a session has no resume command, and how Crush
// reopens it.
func (Reader) ResumeRefusal(id, project string) string {
	if rest, ok := strings.CutPrefix(id, IDPrefix); ok && strings.Contains(rest, ".") {
		return "a Crush sub-agent's session reopens only inside the session that ran it: resume that one"
	}
	return "Crush keeps a session in its project's .crush/crush.db and this session's project is not known: run 'crush --session " + strings.TrimPrefix(id, IDPrefix) + "' in the project"
}
