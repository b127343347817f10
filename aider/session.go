package aider

import "time"

// Role says who wrote a message.
type Role string

// The two roles a message can have. Tool output is never a message.
const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// RecordKind says what a record names.
type RecordKind string

// The two kinds of record aider's tool lines yield.
const (
	FileRecord    RecordKind = "file"
	CommandRecord RecordKind = "command"
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
}

// Record is a file aider edited or added, or a command that ran.
type Record struct {
	Kind  RecordKind
	Value string
	Turn  int
	Line  int
}

// Session is one launch of aider: everything from one
// "# aider chat started at" header to the next.
type Session struct {
	// ID is stable for a history at a given path; see SessionID.
	ID string
	// Ordinal is the 1-based position of the session in its file,
	// a headerless leading session included.
	Ordinal int
	// Started is the header's local time; zero when the header did not
	// parse or the session has no header.
	Started time.Time
	// Header is the header line as written, empty for a headerless
	// leading session.
	Header string
	// Offset and End are the byte range of the session in the file.
	Offset, End int64
	Messages    []Message
	Records     []Record
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
}
