package opencode

import "github.com/deja-dev/deja/harness"

// sessionInfo is one session row (or session file): what deja needs of it.
type sessionInfo struct {
	ID        string
	ParentID  string
	Directory string
	Created   int64 // epoch milliseconds
	Updated   int64
	// Changed is the latest update time of the session, its messages and
	// its parts, and Parts a count of them (in a SQLite store, of its
	// message and part rows, so that a deleted one shows): together the
	// session's marker.
	Changed int64
	Parts   int
}

// messageInfo is one message with its parts in id order (ids sort by
// creation: FORMATS.md §4.2).
type messageInfo struct {
	ID      string
	Session string
	Role    string
	Created int64
	// Cwd is the assistant's path.cwd, where 0.5 sessions name their
	// directory.
	Cwd   string
	Parts []partInfo
}

// partInfo is one part: text, reasoning, tool, patch … (message-v2.ts).
type partInfo struct {
	ID        string
	Message   string
	Type      string
	Text      string
	Synthetic bool
	Ignored   bool
	Tool      string
	Status    string
	Input     toolInput
	// Outcome is how a bash or file tool call ended (state.status,
	// metadata.exit, state.output), decoded only for those tools.
	Outcome harness.Outcome
	// Spans are an edit call's oldString/newString, each of a multiedit
	// call's edits, or a write call's content, clipped.
	Spans []harness.Span
	// Files are a patch part's changed files.
	Files []string
}

// toolInput holds the inputs of the tools that name files or commands.
type toolInput struct {
	FilePath  string
	Path      string
	Command   string
	PatchText string
}
