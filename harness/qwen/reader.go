package qwen

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Qwen Code's name among the harnesses.
const Name = "qwen"

// IDPrefix starts every Qwen Code session ID.
const IDPrefix = Name + "-"

// Reader is Qwen Code as a harness.
type Reader struct{}

var (
	_ harness.LineStreamer = Reader{}
	_ harness.PieceParser  = (*parser)(nil)
	_ harness.Resumer      = Reader{}
)

// Name returns "qwen".
func (Reader) Name() string { return Name }

// Discover finds the chat files; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

// Parse parses one chat file; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

// Streams reports every chat file: its session id comes from its name or
// from its records, never from a look at its last lines.
func (Reader) Streams(path string, head []byte) bool { return true }

// Stream starts the parse of a chat file, its lines decoded into strings
// of their own.
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser {
	return newParser(opts, 0)
}

// errNotChat is Sniff's answer for a file that is not a Qwen Code chat.
var errNotChat = errors.New("not a Qwen Code chat (a JSONL file of records with uuid, sessionId and type under .qwen/projects/<project>/chats)")

// Sniff accepts a .jsonl file whose first line is a Qwen Code record: a
// JSON object holding uuid, sessionId and type. Claude Code's lines hold
// the same three keys, so the record must also be Qwen Code's by its
// place (a chats folder, or a subagents/<sessionId> folder) or by a key
// Claude Code never writes at the top of a line (systemPayload) or in its
// message (parts, Gemini's content shape).
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Ext(path) != ".jsonl" {
		return errNotChat
	}
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf"), []byte("\n"))
	held := harness.TopKeys(first, "uuid", "sessionId", "type", "systemPayload")
	if !held[0] || !held[1] || !held[2] {
		return errNotChat
	}
	if held[3] || inChatsFolder(path) || harness.HasKey(first, "parts") {
		return nil
	}
	return errNotChat
}

// inChatsFolder reports a file in a chats folder or in a session's
// subagents folder, the two places Qwen Code writes records.
func inChatsFolder(path string) bool {
	dir := filepath.Dir(path)
	return filepath.Base(dir) == "chats" || filepath.Base(filepath.Dir(dir)) == "subagents"
}

// ValidID reports a session ID of the shape Qwen Code gives its sessions:
// qwen-<sessionId>, the sessionId a UUID (randomUUID in the CLI), and for
// a subagent -agent-<agentId> after it, the agentId of letters, digits,
// '_' and '-' as the CLI writes it into the file name.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || len(rest) < 36 || !harness.IsUUID(rest[:36]) {
		return false
	}
	tail := rest[36:]
	if tail == "" {
		return true
	}
	agent, ok := strings.CutPrefix(tail, "-agent-")
	return ok && harness.IsToken(agent)
}

// ResumeCommand is `qwen --resume <sessionId>` run in the session's
// project: Qwen Code keeps a project's chats in a folder named after its
// directory, so the command finds the session only from there. A
// subagent's transcript cannot be resumed on its own, and without the
// project there is no command that finds the session.
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || !harness.IsUUID(sid) || project == "" {
		return ""
	}
	return "cd " + harness.ShellQuote(project) + " && qwen --resume " + sid
}

// ResumeRefusal says why a session has no resume command.
func (Reader) ResumeRefusal(id, project string) string {
	if project == "" {
		return "Qwen Code resumes a session in the folder it ran in, and this session's folder is not known"
	}
	return "its session ID is not one Qwen Code takes"
}
