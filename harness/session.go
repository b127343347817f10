package harness

import "time"

// Role says who wrote a message.
type Role string

// The two roles a message can have. Tool calls and tool output are never
// messages.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// RecordKind says what a record names.
type RecordKind string

// The two kinds of record: a file the agent touched, a command it ran.
const (
	FileRecord    RecordKind = "file"
	CommandRecord RecordKind = "command"
)

// FileAction says how a file record touched its file. It is empty for
// command records, and for file records whose harness does not tell.
type FileAction string

// The ways a turn can touch a file, strongest first.
const (
	Edited FileAction = "edited" // the agent changed or wrote the file
	Added  FileAction = "added"  // the file was put into the conversation
	Read   FileAction = "read"   // the agent only read it
)

// Message is one user or assistant message of a session.
type Message struct {
	Role Role
	Text string
	// Turn counts user messages in the session from 0; an assistant
	// message before any user message has turn -1.
	Turn int
	// Line is the 1-based line in the file where the message starts.
	Line int
	// Time is when the message was written, where the harness records
	// it; zero otherwise (aider has only the session's start).
	Time time.Time
}

// Record is a file the agent edited, added or read, or a command it ran.
type Record struct {
	Kind  RecordKind
	Value string
	// Action is how a file record touched the file.
	Action FileAction
	Turn   int
	Line   int
	// Outcome is how the call behind the record ended (a command's exit
	// status and output, an edit applied or refused), zero where the
	// harness does not record it.
	Outcome Outcome
	// Span is the text an edit record replaced and wrote, where the
	// harness records it.
	Span Span
}

// Session is one conversation of one harness.
type Session struct {
	// ID is stable for the conversation; each harness says how it is made.
	ID string
	// Ordinal is the 1-based position of the session in its file.
	Ordinal int
	// Started is when the session began; zero when unknown.
	Started time.Time
	// Header is the harness's own opening line as written (aider's
	// "# aider chat started at" line), empty when it has none.
	Header string
	// Offset and End are the byte range of the session in the file.
	Offset, End int64
	// Project is the directory the agent worked in (its cwd), absolute;
	// empty when the history's place says it, as for aider.
	Project string
	// Parent is the ID of the session this one was resumed or forked
	// from, or that spawned it as a subagent; empty for a root session.
	Parent string
	// Subagent marks a session an agent ran for another (Claude Code
	// sidechains and agent files, Codex exec and review runs): kept, linked
	// to Parent, and out of default recall.
	Subagent bool
	// PromptOnly marks a session made of one prompt of the agent's prompt
	// history (PromptSessions): one user message, no answer, Parent the
	// session the history names. The indexer stores it only when no other
	// session of its harness holds the prompt.
	PromptOnly bool
	// Marker is a WholeReader's change marker for the session (OpenCode's
	// time_updated); empty for FileReaders, whose changes the file's bytes
	// show.
	Marker   string
	Messages []Message
	Records  []Record
}

// HasStart reports whether the session's start time is known.
func (s *Session) HasStart() bool { return !s.Started.IsZero() }

// History is the parsed content of one history file.
type History struct {
	// Path is the absolute path the history was read from.
	Path     string
	Sessions []Session
	// Stripped reports a file whose trailing whitespace was removed, so
	// aider's two-space line ends could not guide the parse.
	Stripped bool
	Warnings []string
	// Refused says, one line each, which sessions were dropped because
	// their IDs are not of their harness's shape (CheckIDs). The indexer
	// reports them as problems and Warnings as warnings, a few lines a
	// history.
	Refused []string
}
