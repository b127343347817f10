package factory

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Factory droid's name among the harnesses.
const Name = "factory"

// IDPrefix starts every droid session ID.
const IDPrefix = Name + "-"

// Reader is Factory droid as a harness.
type Reader struct{}

var (
	_ harness.LineStreamer  = Reader{}
	_ harness.ResumeRefuser = Reader{}
)

// Name returns "factory".
func (Reader) Name() string { return Name }

// Discover finds the session files; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

// Parse parses one session file; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

// Streams reports every session file: its id comes from its name or its
// session_start line, never from a look at its last lines.
func (Reader) Streams(path string, head []byte) bool { return true }

// Stream starts the parse of a session file, its lines decoded into
// strings of their own.
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser { return newParser(opts, 0) }

// errNotSession is Sniff's answer for a file that is not a droid session.
var errNotSession = errors.New("not a Factory droid session (a JSONL file under .factory/sessions whose first line is a session_start record with id and cwd)")

// Sniff accepts a .jsonl file whose first line is a droid session_start
// record: type, id and cwd, with owner or sessionTitle, which no other
// harness's first line holds (pi's header has type, id and cwd too, but
// neither of those). A file under a .factory/sessions folder whose first
// line is a message record (type "message") is droid's as well.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Ext(path) != ".jsonl" {
		return errNotSession
	}
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf"), []byte("\n"))
	held := harness.TopKeys(first, "type", "id", "cwd", "owner", "sessionTitle", "message")
	if held[0] && held[1] && held[2] && (held[3] || held[4]) {
		return nil
	}
	if held[0] && held[5] && inSessions(path) && harness.AnyValue(first, "type", isMessage) {
		return nil
	}
	return errNotSession
}

func isMessage(v string) bool { return v == "message" }

// inSessions reports a file in .factory/sessions or one folder below it.
func inSessions(path string) bool {
	dir := filepath.ToSlash(filepath.Dir(path))
	return strings.HasSuffix(dir, ".factory/sessions") || strings.HasSuffix(filepath.ToSlash(filepath.Dir(filepath.Dir(path))), ".factory/sessions")
}

// ValidID reports a session ID of the shape droid gives its sessions:
// factory-<id>, the id a UUID (the file's name and session_start's id).
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	return ok && harness.IsUUID(rest)
}

// ResumeCommand is `droid --resume <sessionId>` (alias -r; Factory's CLI
// reference), run in the session's project when it is known, since droid
// files sessions under a folder named after the working directory.
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || !harness.IsUUID(sid) {
		return ""
	}
	if project == "" {
		return "droid --resume " + sid
	}
	return "cd " + harness.ShellQuote(project) + " && droid --resume " + sid
}

// ResumeRefusal says why a session has no resume command.
func (Reader) ResumeRefusal(id, project string) string {
	return "its session ID is not one droid takes (droid --resume wants the UUID of a file under ~/.factory/sessions)"
}
