package goose

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Goose's name among the harnesses.
const Name = "goose"

// Reader is Goose as a harness: a store it reads whole (with the legacy
// files beside it), or one legacy file, each session with a marker of its
// latest change.
type Reader struct{}

var (
	_ harness.WholeReader = Reader{}
	_ harness.Resumer     = Reader{}
)

// Name returns "goose".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shapes Goose gives its sessions:
// goose- then the store's <yyyymmdd>_<n>, a legacy <yyyymmdd>_<hhmmss>, or
// a name given with --name, in letters, digits, '_', '-' and '.', at most
// 128 bytes.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || rest == "" || len(rest) > 128 || rest[0] == '.' {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Discover finds the stores and legacy files; see the package function
// Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var sqliteMagic = []byte("SQLite format 3\x00")

// errNotGoose is Sniff's answer for a file that is not Goose's.
var errNotGoose = errors.New("not a Goose history (sessions.db, SQLite, or a legacy session .jsonl)")

// Sniff accepts a SQLite file named sessions.db, and a .jsonl file whose
// first line is a legacy session's metadata ({working_dir, description,
// …}) or a Goose message ({role, created, content}).
func (Reader) Sniff(path string, head []byte) error {
	switch {
	case filepath.Base(path) == StoreName && bytes.HasPrefix(head, sqliteMagic):
		return nil
	case strings.HasSuffix(path, ".jsonl"):
		first, _, _ := bytes.Cut(head, []byte("\n"))
		// SessionMetadata requires description and message_count
		// (storage.rs); working_dir came later.
		held := harness.TopKeys(first, "description", "message_count", "role", "created", "content", "type")
		metadata := held[0] && held[1] && !held[2]
		message := held[2] && held[3] && held[4] && !held[5]
		if metadata || message {
			return nil
		}
	}
	return errNotGoose
}

// Read reads the store at path with the legacy files beside it that it
// does not hold (ReadStore), or the legacy file at path (ReadLegacy).
func (Reader) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	if strings.HasSuffix(path, ".jsonl") {
		return ReadLegacy(path, opts.Unchanged)
	}
	return ReadStore(ctx, path, opts.Unchanged)
}

// ResumeCommand is `goose session --resume --session-id <id>` run in the
// session's directory (goose-cli's session flags; the store's ids and
// the legacy names Goose imported alike).
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || !(Reader{}).ValidID(id) {
		return ""
	}
	cmd := "goose session --resume --session-id " + harness.ShellQuote(sid)
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}
