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
// CLI conversation (a conversations_v2 row, or a v2 session file named
// by the same id), kiro-q-<conversation_id> for an Amazon Q Developer CLI
// one (the older conversations table, one per directory),
// kiro-ide-<sessionId> for a Kiro IDE chat, kiro-ws-<id> for a v3
// session (~/.kiro/sessions/<workspace>/sess_<id>).
const (
	IDPrefix  = Name + "-"
	qPrefix   = IDPrefix + "q-"
	idePrefix = IDPrefix + "ide-"
	wsPrefix  = IDPrefix + "ws-"
)

// Reader is Kiro as a harness: the CLI's SQLite store, the session files
// of its newer engines and the IDE's chats, each read whole, each
// session with a change marker.
type Reader struct{}

var (
	_ harness.WholeReader   = Reader{}
	_ harness.ResumeRefuser = Reader{}
)

// Name returns "kiro".
func (Reader) Name() string { return Name }

// ValidID reports an ID of the shapes this package gives: kiro-<uuid>,
// kiro-q-<uuid> (the CLI's conversation_id, a random UUID) and
// kiro-ide-<token> (the IDE's sessionId), kiro-ws-<token> (a v3
// session's folder).
func (Reader) ValidID(id string) bool {
	for _, p := range []string{idePrefix, wsPrefix} {
		if rest, ok := strings.CutPrefix(id, p); ok {
			return harness.IsToken(rest)
		}
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

var errNotKiro = errors.New("not a Kiro history (a data.sqlite3 SQLite store, a session file under ~/.kiro/sessions, or a session .json under kiro.kiroagent/workspace-sessions)")

// Sniff accepts a SQLite file named data.sqlite3; a JSON object in a
// .json file (not the sessions.json index) one folder below a
// workspace-sessions folder; and a session file of the CLI's newer
// engines (cli/<uuid>.jsonl, <workspace>/sess_<id>/messages.jsonl) that
// is empty or starts with a JSON object.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Base(path) == storeName && bytes.HasPrefix(head, sqliteMagic) {
		return nil
	}
	_, _, session := sessionFile(path)
	if h := bytes.TrimLeft(head, " \t\r\n\ufeff"); session && (len(h) == 0 || h[0] == '{') {
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
// conversations, one session file, or one IDE chat.
func (Reader) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	if _, ok := ideSessionID(path); ok {
		return ReadIDESession(path, opts)
	}
	if _, _, ok := sessionFile(path); ok {
		return ReadSessionFile(path, opts)
	}
	return ReadStore(ctx, path, opts.Unchanged)
}

// ResumeCommand reopens a CLI conversation: `kiro-cli chat --resume-id
// <id>` for a Kiro CLI one, from its store or a v2 session file (it
// resumes by id whatever the folder, Kiro issue 9066; run in the project,
// where its tools worked), and `q chat
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
	if strings.HasPrefix(id, wsPrefix) {
		return "a session of ~/.kiro/sessions/<workspace>/ reopens from the Kiro app that wrote it; no Kiro command line is documented to open one"
	}
	return "an Amazon Q CLI conversation resumes in the folder it ran in, and this one's folder is not known: run 'q chat --resume' there"
}
