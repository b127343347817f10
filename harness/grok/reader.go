package grok

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Grok Build's name among the harnesses.
const Name = "grok"

// IDPrefix starts every Grok Build session ID.
const IDPrefix = Name + "-"

// Reader is Grok Build as a harness.
type Reader struct{}

var (
	_ harness.LineStreamer  = Reader{}
	_ harness.ResumeRefuser = Reader{}
)

// Name returns "grok".
func (Reader) Name() string { return Name }

// Discover finds the session files; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

// Parse parses one session file; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

// Streams reports every session file: what a session is comes from its
// place and its lines, never from a look at its end.
func (Reader) Streams(path string, head []byte) bool { return true }

// Stream starts the parse of a session file, its lines decoded into
// strings of their own.
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser { return newParser(opts, 0) }

// errNotSession is Sniff's answer for a file that is not a Grok session.
var errNotSession = errors.New("not a Grok Build session (a JSONL file whose first line is a session/update envelope {timestamp, method, params}, or an updates.jsonl under .grok/sessions)")

// Sniff accepts a .jsonl file whose first line is Grok's envelope: method
// "session/update" or "_x.ai/session/update" beside params. In a file
// named updates.jsonl it also accepts a notification written before the
// envelope ({sessionId, update}). Claude Code's lines hold a sessionId too,
// but no update.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Ext(path) != ".jsonl" {
		return errNotSession
	}
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf"), []byte("\n"))
	held := harness.TopKeys(first, "method", "params", "sessionId", "update")
	if held[0] && held[1] && harness.AnyValue(first, "method", isUpdateMethod) {
		return nil
	}
	if held[2] && held[3] && filepath.Base(path) == updatesFile {
		return nil
	}
	return errNotSession
}

func isUpdateMethod(v string) bool { return v == methodACP || v == methodXAI }

// ValidID reports a session ID of the shape Grok gives its sessions:
// grok-<uuid> (a UUIDv7 it makes, or one a client gave with -s, which
// must be a UUID too; subagents' sessions are named so as well).
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	return ok && harness.IsUUID(rest)
}

// ResumeCommand is `grok --resume <id>` (-r; docs/user-guide/17-sessions.md),
// run in the session's project when it is known: Grok finds the session
// from any folder, but a session runs in the folder it is started from.
func (r Reader) ResumeCommand(id, project string) string {
	if !r.ValidID(id) {
		return ""
	}
	sid := id[len(IDPrefix):]
	if project == "" {
		return "grok --resume " + sid
	}
	return "cd " + harness.ShellQuote(project) + " && grok --resume " + sid
}

// ResumeRefusal says why a session has no resume command.
func (Reader) ResumeRefusal(id, project string) string {
	return "its session ID is not one Grok takes (grok --resume wants the UUID of a folder under ~/.grok/sessions)"
}
