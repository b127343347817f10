package claude

import (
	"bytes"
	"errors"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// Name is Claude Code's name among the harnesses.
const Name = "claude"

// Reader is Claude Code as a harness.
type Reader struct{}

var (
	_ harness.LineStreamer = Reader{}
	_ harness.Resumer      = Reader{}
)

// Name returns "claude".
func (Reader) Name() string { return Name }

// Parse parses one transcript (see the package function Parse), or the
// prompt history, history.jsonl, by its name (parsePrompts).
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	if isPromptHistory(opts.Path) {
		return parsePrompts(data, opts)
	}
	return Parse(data, opts)
}

// Streams reports a transcript named by its session id: one of another
// name takes its id from its last lines (lastSessionID), and is read
// whole.
func (Reader) Streams(path string, head []byte) bool { return fileSessionID(path) != "" }

// Stream starts the parse of a transcript that Streams, its lines decoded
// into strings of their own.
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser {
	return newParser(opts, fileSessionID(opts.Path), 0)
}

// errNotTranscript is Sniff's answer for a file that is not one.
var errNotTranscript = errors.New("not a Claude Code transcript")

// Sniff accepts a .jsonl file whose first line is a Claude Code line: one
// with a type and a sessionId, or a summary or file-history-snapshot line, which
// carry none and may open a transcript (§1.2); and the prompt history,
// history.jsonl, whose first line has a display (an empty one is left to
// no reader: Codex's has the same name).
func (Reader) Sniff(path string, head []byte) error {
	if !strings.HasSuffix(path, ".jsonl") {
		return errNotTranscript
	}
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n"), []byte("\n"))
	if isPromptHistory(path) {
		if harness.TopKeys(first, "display")[0] {
			return nil
		}
		return errNotTranscript
	}
	var l struct {
		Type      string `json:"type"`
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(first, &l) != nil {
		// A first line longer than the head: judge by the keys before the cut.
		if harness.TopKeys(first, "sessionId")[0] {
			return nil
		}
		return errNotTranscript
	}
	// Every Claude Code line has a type; Gemini CLI's header has a
	// sessionId but none.
	if (l.SessionID != "" && l.Type != "") || l.Type == "summary" || l.Type == "file-history-snapshot" {
		return nil
	}
	return errNotTranscript
}

// ResumeCommand is `claude --resume <sessionId>`, run in the session's
// project; a subagent's session cannot be resumed on its own.
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, "claude-")
	if !ok || !harness.IsUUID(sid) {
		return ""
	}
	cmd := "claude --resume " + sid
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}
