package opencode

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is OpenCode's name among the harnesses.
const Name = "opencode"

// Reader is OpenCode as a harness: a store it reads whole, each session
// with a marker of its latest change.
type Reader struct{}

var _ harness.WholeReader = Reader{}

// Name returns "opencode".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shape OpenCode documents:
// opencode-ses_…, OpenCode's prefixed, sortable id in letters and digits.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix+"ses_")
	if !ok || rest == "" || len(rest) > 64 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// Discover finds the stores; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var sqliteMagic = []byte("SQLite format 3\x00")

// Sniff accepts a SQLite file named opencode*.db, or a JSON storage tree
// (a directory named storage holding session/).
func (Reader) Sniff(path string, head []byte) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		if isStorageDir(path) {
			return nil
		}
		return errNotStore
	}
	name := filepath.Base(path)
	if strings.HasPrefix(name, "opencode") && strings.HasSuffix(name, ".db") && bytes.HasPrefix(head, sqliteMagic) {
		return nil
	}
	return errNotStore
}

// Read reads every session of the store at path: ReadStorage for a
// storage tree, ReadStore for a SQLite file.
func (Reader) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return ReadStorage(ctx, path)
	}
	return ReadStore(ctx, path, opts.Unchanged)
}

var _ harness.Resumer = Reader{}

// ResumeCommand is `opencode --session <id>` run in the session's
// directory, where OpenCode looks for the session's project.
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || sid == "" || strings.ContainsAny(sid, "/ ") {
		return ""
	}
	cmd := "opencode --session " + harness.ShellQuote(sid)
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}
