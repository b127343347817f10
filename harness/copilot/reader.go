package copilot

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// Name is GitHub Copilot CLI's name among the harnesses.
const Name = "copilot"

// Reader is GitHub Copilot CLI as a harness: it discovers the sessions'
// events.jsonl files with Discover and parses them with Parse.
type Reader struct{}

var (
	_ harness.LineStreamer = Reader{}
	_ harness.Resumer      = Reader{}
)

// Name returns "copilot".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shape Copilot CLI gives its
// sessions: copilot-<sessionId>, the sessionId a UUID (it names the
// session's directory and is what --resume takes), and for a sub-agent
// -agent-<toolCallId> after it, the toolCallId letters, digits, '_' and
// '-' alone; and copilot-prompt-<hash> for a prompt of
// command-history-state.json (harness.PromptID).
func (Reader) ValidID(id string) bool {
	if harness.IsPromptID(Name, id) {
		return true
	}
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || len(rest) < 36 || !harness.IsUUID(rest[:36]) {
		return false
	}
	tail := rest[36:]
	if tail == "" {
		return true
	}
	agent, ok := strings.CutPrefix(tail, agentInfix)
	return ok && harness.IsToken(agent)
}

// Discover finds the events files; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

// errNotEvents is Sniff's answer for a file that is not a session's
// events.
var errNotEvents = errors.New("not a GitHub Copilot CLI session (events.jsonl under ~/.copilot/session-state/<sessionId>, one {type, data} event a line)")

// Sniff accepts a .jsonl file whose first line is a Copilot CLI event: an
// object with a type and a data object and neither of the sessionId and
// uuid keys every Claude Code line carries at its top; a type written in
// full is one of Copilot CLI's dotted kinds ("session.start").
func (Reader) Sniff(path string, head []byte) error {
	if isPromptHistory(path) {
		if sniffPrompts(bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")) {
			return nil
		}
		return errNotEvents
	}
	if filepath.Ext(path) != ".jsonl" {
		return errNotEvents
	}
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	first, _, _ := bytes.Cut(h, []byte("\n"))
	held := harness.TopKeys(first, "type", "data", "sessionId", "uuid")
	if !held[0] || !held[1] || held[2] || held[3] {
		return errNotEvents
	}
	var typ []byte
	sc := jsonscan.New(first)
	sc.Object(func(key []byte) bool {
		if string(key) != "type" {
			return false
		}
		typ = sc.RawString()
		return true
	})
	if typ != nil && !known(string(typ)) {
		return errNotEvents
	}
	return nil
}

// Parse parses one events file (see the package function Parse), or the
// prompt history, command-history-state.json, by its name (parsePrompts).
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	if isPromptHistory(opts.Path) {
		return parsePrompts(data, opts)
	}
	return Parse(data, opts)
}

// Streams reports an events file, which is parsed as its lines are read.
func (Reader) Streams(path string, head []byte) bool { return filepath.Ext(path) == ".jsonl" }

// Stream starts the parse of an events file, line by line: one that
// hands over its finished turns when opts carry what Prescan found.
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser {
	p := newParser(opts)
	p.prescanned(opts.Prescanned)
	return p
}

// ResumeCommand is `copilot --resume <sessionId>`, run in the session's
// project when it is known (the CLI finds a session by its id alone, and
// works in the directory it is started in). A sub-agent's session is not
// reopened on its own.
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || !harness.IsUUID(sid) {
		return ""
	}
	cmd := "copilot --resume " + sid
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}
