package kimi

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is the name of both Kimi products among the harnesses.
const Name = "kimi"

// IDPrefix starts every Kimi session ID.
const IDPrefix = Name + "-"

// agentInfix joins a subagent's key to its session's ID.
const agentInfix = "-agent-"

// Reader is kimi-cli and Kimi Code as a harness.
type Reader struct{}

var (
	_ harness.LineStreamer  = Reader{}
	_ harness.ResumeRefuser = Reader{}
)

// Name returns "kimi".
func (Reader) Name() string { return Name }

// Discover finds the session files; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

// Parse parses one session file; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

// Streams reports every session file: what a file is comes from its place
// and its lines, never from a look at its end.
func (Reader) Streams(path string, head []byte) bool { return true }

// Stream starts the parse of a session file, its lines decoded into
// strings of their own.
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser { return newParser(opts, 0) }

// errNotKimi is Sniff's answer for a file that is not a Kimi session.
var errNotKimi = errors.New("not a Kimi session (a wire.jsonl opening with a metadata line under ~/.kimi/sessions or ~/.kimi-code/sessions, or a kimi-cli context.jsonl there)")

// Sniff accepts a .jsonl file whose first line is a wire log's metadata
// line ({"type":"metadata","protocol_version":…}, both products), or,
// in a wire.jsonl, a kimi-cli event ({timestamp, message}) or a Kimi Code
// record (a dotted type such as "turn.prompt"), or, in a kimi-cli context
// file's place, a message ({"role":…}). Claude Code's lines carry a
// message and a timestamp too, so only the place tells those apart.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Ext(path) != ".jsonl" {
		return errNotKimi
	}
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf"), []byte("\n"))
	held := harness.TopKeys(first, "type", "protocol_version", "timestamp", "message", "role", "uuid", "sessionId")
	if held[5] || held[6] {
		return errNotKimi
	}
	if held[0] && held[1] {
		return nil
	}
	base := filepath.Base(path)
	switch {
	case base == "wire.jsonl" && held[2] && held[3] && !held[0]:
		return nil
	case base == "wire.jsonl" && held[0] && dottedType(first):
		return nil
	case held[4] && !held[0] && contextPlace(path):
		return nil
	}
	return errNotKimi
}

// dottedType reports a line whose type is a Kimi Code record type: words
// joined by dots ("config.update", "context.append_message").
func dottedType(line []byte) bool {
	return harness.AnyValue(line, "type", func(v string) bool {
		return strings.Contains(v, ".") && !strings.ContainsAny(v, " /\\")
	})
}

// contextPlace reports a kimi-cli context file where the CLI writes one.
func contextPlace(path string) bool {
	p := placeOf(path)
	return !p.code && p.bucket != "" && !strings.HasSuffix(path, "wire.jsonl")
}

// ValidID reports a session ID of the shape the products give their
// sessions: kimi-<sessionId>, the id a UUID (kimi-cli) or Kimi Code's
// session_<uuid>, ses_<uuid> for a session it imported from kimi-cli, or
// another id of letters, digits, '.', '_' and '-' (Kimi Code's
// isSafeSessionId), then for a subagent -agent-<key> after it.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok {
		return false
	}
	sid, agent, sub := strings.Cut(rest, agentInfix)
	if sub && !harness.IsToken(agent) {
		return false
	}
	return validSession(sid)
}

// validSession reports a product's session id as deja keeps it.
func validSession(sid string) bool {
	if sid == "" || len(sid) > maxSession || sid[0] == '.' || sid[0] == '-' {
		return false
	}
	for i := 0; i < len(sid); i++ {
		if c := sid[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// maxSession bounds a session id's length in an ID.
const maxSession = 128

// ResumeCommand is `kimi --session <id>` run in the session's project:
// kimi-cli finds a session only under its work directory's bucket, and
// Kimi Code looks there first. A subagent's run cannot be resumed on its
// own, and without the project there is no command that finds a kimi-cli
// session.
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || strings.Contains(sid, agentInfix) || !validSession(sid) || project == "" {
		return ""
	}
	return "cd " + harness.ShellQuote(project) + " && kimi --session " + harness.ShellQuote(sid)
}

// ResumeRefusal says why a session has no resume command.
func (Reader) ResumeRefusal(id, project string) string {
	switch {
	case strings.Contains(id, agentInfix):
		return "it is a subagent's run, which Kimi does not resume on its own; resume the session that ran it"
	case project == "":
		return "Kimi resumes a session from the folder it ran in, and this session's folder is not known"
	}
	return "its session ID is not one Kimi takes"
}
