package cursor

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Cursor's name among the harnesses.
const Name = "cursor"

// IDPrefix starts every Cursor session's ID: cursor-<composerId> for an
// IDE conversation, cursor-transcript-<id> for an agent transcript.
const IDPrefix = "cursor-"

// transcriptPrefix starts the ID of a session read from an agent
// transcript. A transcript may hold a conversation the IDE's store holds
// too, under the same id; the prefix keeps the two apart, so neither
// overwrites the other.
const transcriptPrefix = IDPrefix + "transcript-"

// panelPrefix starts the ID of a tab of the IDE's old chat panel:
// cursor-chat-<tabId>.
const panelPrefix = IDPrefix + "chat-"

// Reader is Cursor as a harness: stores and transcripts it reads whole,
// each session with a marker of its latest change.
type Reader struct{}

var _ harness.WholeReader = Reader{}

// Name returns "cursor".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shapes this package gives:
// cursor-<uuid> (a composerId), cursor-transcript-<uuid> (a transcript's
// file name), cursor-agent-<uuid> (a cursor-agent chat's agentId) or
// cursor-chat-<uuid> (a tab of the IDE's old chat panel), or
// cursor-prompt-<hash> (a prompt of prompt_history.json, harness.PromptID).
func (Reader) ValidID(id string) bool {
	if rest, ok := strings.CutPrefix(id, transcriptPrefix); ok {
		return harness.IsUUID(rest)
	}
	if rest, ok := strings.CutPrefix(id, agentPrefix); ok {
		return harness.IsUUID(rest)
	}
	if rest, ok := strings.CutPrefix(id, panelPrefix); ok {
		return harness.IsUUID(rest)
	}
	if harness.IsPromptID(Name, id) {
		return true
	}
	rest, ok := strings.CutPrefix(id, IDPrefix)
	return ok && harness.IsUUID(rest)
}

// Discover finds the stores and transcripts; see the package function
// Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var sqliteMagic = []byte("SQLite format 3\x00")

// errNotCursor is Sniff's answer for a file that is not Cursor's.
var errNotCursor = errors.New("not a Cursor history (a state.vscdb SQLite store, a cursor-agent chats/<md5>/<id>/store.db, or a .jsonl under agent-transcripts)")

// Sniff accepts a SQLite file named state.vscdb, a SQLite file at
// chats/<md5>/<uuid>/store.db, and a .jsonl file inside an
// agent-transcripts directory, and a prompt_history.json that opens a JSON
// array.
func (Reader) Sniff(path string, head []byte) error {
	name := filepath.Base(path)
	switch {
	case (name == storeName || isAgentStore(path)) && bytes.HasPrefix(head, sqliteMagic):
		return nil
	case name == historyName:
		if bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf"), []byte("[")) {
			return nil
		}
	case strings.HasSuffix(name, ".jsonl") && inTranscripts(path):
		h := bytes.TrimLeft(head, " \t\r\n")
		if len(h) == 0 || h[0] == '{' {
			return nil
		}
	}
	return errNotCursor
}

// inTranscripts reports a path with an agent-transcripts directory above
// its file.
func inTranscripts(path string) bool {
	for dir := filepath.Dir(path); ; {
		if filepath.Base(dir) == transcriptsDir {
			return true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}

// Read reads every session of the history at path: a state.vscdb store's
// conversations, a cursor-agent chat, one agent transcript, or the
// cursor-agent CLI's prompt history (readPrompts).
func (Reader) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	if isPromptHistory(path) {
		return readPrompts(path, opts)
	}
	if strings.HasSuffix(path, ".jsonl") {
		return ReadTranscript(path, opts)
	}
	if filepath.Base(path) == agentStoreName {
		return ReadAgentStore(ctx, path, opts.Unchanged)
	}
	return ReadStore(ctx, path, opts.Unchanged)
}

var _ harness.Resumer = Reader{}

// ResumeCommand is `cursor-agent --resume <agentId>` run in the chat's
// project (the CLI keeps chats per working directory) for a cursor-agent
// chat, and "" for the rest: Cursor reopens an IDE conversation only from
// the IDE's own chat history, and has no command that reopens an agent
// transcript from a shell, so deja prints none and says so.
func (Reader) ResumeCommand(id, project string) string {
	rest, ok := strings.CutPrefix(id, agentPrefix)
	if !ok || !harness.IsUUID(rest) || project == "" {
		return ""
	}
	return "cd " + harness.ShellQuote(project) + " && cursor-agent --resume " + rest
}

// ResumeRefusal says why a session has no resume command, and how Cursor
// reopens it.
func (Reader) ResumeRefusal(id, project string) string {
	switch {
	case strings.HasPrefix(id, agentPrefix):
		return "cursor-agent resumes a chat in the folder it ran in, and this chat's folder is not known: run 'cursor-agent ls' there"
	case strings.HasPrefix(id, transcriptPrefix):
		return "no command reopens an agent transcript: its conversation reopens from Cursor's chat history"
	case strings.HasPrefix(id, panelPrefix):
		return "a tab of Cursor's old chat panel reopens only from that panel in Cursor"
	}
	return "a Cursor IDE conversation reopens only from Cursor's chat history (no command line opens one)"
}
