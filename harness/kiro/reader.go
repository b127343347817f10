package kiro

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Kiro's name among the harnesses.
const Name = "kiro"

// The prefixes of Kiro's session IDs: kiro-<conversation_id> for a Kiro
// CLI conversation (conversations_v2), kiro-q-<conversation_id> for an
// Amazon Q Developer CLI one (the older conversations table, one per
// directory), kiro-ide-<sessionId> for a Kiro IDE chat.
const (
	IDPrefix  = Name + "-"
	qPrefix   = IDPrefix + "q-"
	idePrefix = IDPrefix + "ide-"
)

// Reader is Kiro as a harness: the CLI's SQLite store and the IDE's
// session files, each read whole, each session with a change marker.
type Reader struct{}

var (
	_ harness.WholeReader   = Reader{}
	_ harness.ResumeRefuser = Reader{}
)

// Name returns "kiro".
func (Reader) Name() string { return Name }

// ValidID reports an ID of the shapes this package gives: kiro-<uuid>,
// kiro-q-<uuid> (the CLI's conversation_id, a random UUID) and
// kiro-ide-<token> (the IDE's sessionId).
func (Reader) ValidID(id string) bool {
	if rest, ok := strings.CutPrefix(id, idePrefix); ok {
		return harness.IsToken(rest)
	}
	if rest, ok := strings.CutPrefix(id, qPrefix); ok {
		return harness.IsUUID(rest)
	}
	rest, ok := strings.CutPrefix(id, IDPrefix)
	return ok && harness.IsUUID(rest)
}

// Discover finds the stores and session files; see the package function
// Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var sqliteMagic = []byte("SQLite format 3\x00")

var errNotKiro = errors.New("not a Kiro history (a data.sqlite3 SQLite store, or a session .json under kiro.kiroagent/workspace-sessions)")

// Sniff accepts a SQLite file named data.sqlite3 and a JSON object in a
// .json file (not the sessions.json index) one folder below a
// workspace-sessions folder.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Base(path) == storeName && bytes.HasPrefix(head, sqliteMagic) {
		return nil
	}
	if _, ok := ideSessionID(path); ok {
		if h := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(h) > 0 && h[0] == '{' {
			return nil
		}
	}
	return errNotKiro
}

// Read reads every session of the history at path: a CLI store's
// conversations, or one IDE chat.
func (Reader) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	if _, ok := ideSessionID(path); ok {
		return ReadIDESession(path, opts)
	}
	return ReadStore(ctx, path, opts.Unchanged)
}

// ResumeCommand reopens a CLI conversation: `kiro-cli chat --resume-id
// <id>` for a Kiro CLI one (it resumes by id whatever the folder, Kiro
// issue 9066; run in the project, where its tools worked), and `q chat
// --resume` in the project for an Amazon Q one, the only conversation
// that folder kept. An IDE chat has none: see ResumeRefusal.
func (Reader) ResumeCommand(id, project string) string {
	if rest, ok := strings.CutPrefix(id, qPrefix); ok {
		if !harness.IsUUID(rest) || project == "" {
			return ""
		}
		return "cd " + harness.ShellQuote(project) + " && q chat --resume"
	}
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || !harness.IsUUID(rest) {
		return ""
	}
	cmd := "kiro-cli chat --resume-id " + rest
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}

// ResumeRefusal says why a session has no command, and how Kiro reopens
// it.
func (Reader) ResumeRefusal(id, project string) string {
	if strings.HasPrefix(id, idePrefix) {
		return "a Kiro IDE chat reopens only from the session history of the Kiro IDE's chat panel (no command line opens one)"
	}
	return "an Amazon Q CLI conversation resumes in the folder it ran in, and this one's folder is not known: run 'q chat --resume' there"
}
