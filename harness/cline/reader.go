package cline

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is the name of the Cline family among the harnesses: Cline, Roo
// Code and Kilo Code, which share one task format.
const Name = "cline"

// IDPrefix starts every session ID this reader makes.
const IDPrefix = Name + "-"

// Extension prefixes follow IDPrefix in the IDs of tasks of Cline's forks,
// so an ID says which extension wrote it: cline-roo-<task id> for Roo Code,
// cline-kilo-<task id> for Kilo Code, cline-<task id> for Cline itself.
const (
	rooPrefix  = "roo-"
	kiloPrefix = "kilo-"
)

// Reader is the Cline family as a harness: it discovers task and session
// files with Discover and parses them with Parse.
type Reader struct{}

var _ harness.FileReader = Reader{}

// Name returns "cline".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shapes this reader makes:
// cline-<id>, cline-roo-<id> or cline-kilo-<id>, the id a task folder's or
// SDK session's own (letters, digits, '_' and '-'), and for an SDK
// sub-agent transcript cline-<session id>.<agent>.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok {
		return false
	}
	session, agent, sub := strings.Cut(rest, ".")
	if sub && !harness.IsToken(agent) {
		return false
	}
	return harness.IsToken(session) || harness.IsUUID(session)
}

// Discover finds the histories; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var errNotCline = errors.New("not a Cline, Roo Code or Kilo Code history (tasks/<id>/" + legacyFile + " or sessions/<id>/<id>" + sdkSuffix + ")")

// Sniff accepts a task folder's api_conversation_history.json (or a file
// exported under a name that ends so) that holds a JSON array, and an SDK
// <id>.messages.json that holds an object with a messages or sessionId key
// in its head.
func (Reader) Sniff(path string, head []byte) error {
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	name := filepath.Base(path)
	switch {
	case strings.HasSuffix(name, legacyFile):
		if len(h) > 0 && h[0] == '[' {
			return nil
		}
	case strings.HasSuffix(name, sdkSuffix):
		if len(h) > 0 && h[0] == '{' && (bytes.Contains(head, []byte(`"messages"`)) || bytes.Contains(head, []byte(`"sessionId"`))) {
			return nil
		}
	}
	return errNotCline
}

// Parse parses one history; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

var _ harness.Resumer = Reader{}

// ResumeCommand is `cline --id <session id>` run in the session's
// directory, for a session of the Cline SDK store (whose ids hold a '_':
// 1784094124598_rruoq). Tasks of the VS Code extensions, Roo Code's and
// Kilo Code's, and sub-agent transcripts have no command that reopens
// them: they reopen from the extension's task history, so the command is
// empty.
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || !strings.Contains(sid, "_") || strings.Contains(sid, ".") || !harness.IsToken(sid) {
		return ""
	}
	cmd := "cline --id " + harness.ShellQuote(sid)
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}

// ResumeRefusal says why a session has no resume command, and how its
// agent reopens it.
func (Reader) ResumeRefusal(id, project string) string {
	sid := strings.TrimPrefix(id, IDPrefix)
	switch {
	case strings.Contains(sid, "."):
		return "a sub-agent's transcript reopens only through the session that ran it"
	case strings.HasPrefix(sid, rooPrefix):
		return "a Roo Code task reopens only from the extension's task history in the editor"
	case strings.HasPrefix(sid, kiloPrefix):
		return "a Kilo Code task reopens only from the extension's task history in the editor"
	}
	return "a task of the Cline extension reopens only from its task history in the editor (the cline CLI opens only its own sessions)"
}
