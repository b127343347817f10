package harness

import (
	"context"
	"io"
	"strings"
	"time"
)

// Reader is one harness deja reads: its name, where its histories live,
// and how to tell one of its files. Every harness package exports a value
// implementing Reader and exactly one of FileReader or WholeReader; memory
// and the command line reach harnesses only through these interfaces and
// a Registry, so adding a harness touches no ranking or storage code.
//
// Implementations hold no mutable state: one value serves every file.
type Reader interface {
	// Name is the harness's short, stable name ("aider", "claude",
	// "codex", "gemini", "opencode"). It is stored with every session and
	// is what --harness matches.
	Name() string
	// Discover finds the harness's histories in the places opts names and
	// says where it looked and why. It never fails: an unreadable place is
	// a warning that says what to fix.
	Discover(opts DiscoverOptions) Discovery
	// Sniff reports whether the file at path, whose leading bytes (or all
	// of it) are head, is one of this harness's histories: nil when it is,
	// else an error saying why not (the Registry's last reader's error is
	// what a user sees for a file no harness reads).
	Sniff(path string, head []byte) error
	// ValidID reports whether id, a session ID as Parse or Read names it
	// (the harness's name first: "claude-…"), has the shape the harness
	// documents for its sessions; ParseFile and ReadStore drop a session
	// of another shape with a warning (see CheckIDs).
	ValidID(id string) bool
}

// FileReader is a harness whose histories are files read as bytes
// (aider's Markdown, the JSONL transcripts of Claude Code, Codex and
// Gemini CLI).
//
// Incremental reads: the indexer keeps, per file, the start of the last
// session it stored and a hash of every byte before it. When those bytes
// are unchanged it calls Parse with data starting there (opts.Offset);
// when they changed (the file was rewritten in place, shrank or was
// replaced) it calls Parse on the whole file. A file that holds one
// session (a Claude Code or Codex transcript) is therefore re-read whole
// when it grows, which the parse rates held by each reader's benchmark
// make cheap; only turns whose content changed are stored and embedded
// again.
//
// A line-oriented reader must treat an unterminated last line that is not
// complete (the agent is still writing it) as not there yet: no warning,
// and Session.End stops before it, so the next index reads it whole.
type FileReader interface {
	Reader
	// Parse reads one history's bytes and returns its sessions in file
	// order. data starts at opts.Offset in the file (in decoded bytes for a
	// Decoder). It never fails and never panics: invalid lines, unknown
	// record types and future fields are skipped and counted in Warnings.
	Parse(data []byte, opts ParseOptions) *History
}

// Decoder is implemented by a FileReader whose files may be stored
// encoded (Codex's .jsonl.zst rollouts). The indexer reads the file
// through Decode before Sniff and Parse, counting the decoded bytes
// against MaxDecoded as they come (see ReadAll); offsets and hashes are
// then of the decoded bytes. A file that is not encoded reads as it is;
// damaged input is an error from the returned reader.
type Decoder interface {
	Decode(path string, r io.Reader) (io.ReadCloser, error)
}

// WholeReader is a harness whose history is not an append-only file but a
// store the harness rewrites (OpenCode's SQLite database). Read opens the
// source read-only, without locking it against the harness, and returns
// every session in it, each with its own change Marker (OpenCode's
// time_updated, say). The indexer calls Read on every run (a store's
// writes land in its WAL or in files below it, which its own size and time
// do not show), re-stores only sessions whose Marker changed (an empty
// Marker always counts as changed), and keeps sessions that left the
// source, as it keeps sessions that left a file. path may be a directory.
type WholeReader interface {
	Reader
	Read(ctx context.Context, path string, opts ParseOptions) (*History, error)
}

// FolderProject is implemented by a FileReader whose agent records no
// working directory but keeps each history in the project it worked in
// (aider's .aider.chat.history.md): a session of it that names no project
// is given its history's folder. A session of any other reader that names
// none keeps none: its history's folder is the agent's own
// (~/.continue/sessions, a store's folder), never the user's project, and
// 'deja resume' would cd there.
type FolderProject interface {
	FileReader
	// HistoryInProject marks the reader; it does nothing.
	HistoryInProject()
}

// Resumer is implemented by a harness that can reopen one of its own
// sessions. ResumeCommand returns the shell command that does, for the
// session's stored ID and project ("claude --resume <id>"), or "" when
// this session cannot be resumed.
type Resumer interface {
	ResumeCommand(id, project string) string
}

// ResumeRefuser is a Resumer that says, for a session it has no command
// for, why not and how the agent itself reopens it, in a sentence for a
// person ("a Cursor IDE conversation reopens only from Cursor's chat
// history").
type ResumeRefuser interface {
	Resumer
	ResumeRefusal(id, project string) string
}

// ParseOptions tune a Parse or Read.
type ParseOptions struct {
	// Path is the history's absolute path, symlinks resolved. Readers use
	// it for what the file's place says (aider names sessions by it and
	// makes file records relative to its directory); it is never part of
	// a JSONL harness's session IDs, so a moved transcript keeps them.
	Path string
	// Offset is where data starts in the file, when it is re-read from the
	// start of a session already known. Session offsets are absolute.
	Offset int64
	// FirstOrdinal is the ordinal of the first session in data; 0 means 1.
	FirstOrdinal int
	// Reserved reports IDs that must not be handed out again: sessions
	// before Offset, or known sessions that a session parsed under their
	// ID is not. Readers whose IDs come from the harness's own session ids
	// may ignore it.
	Reserved func(id string) bool
	// Location is the zone of times written without one; nil means
	// time.Local.
	Location *time.Location
	// Unchanged, when set, reports a session a WholeReader's store is
	// known to hold with this Marker: the reader may return it with its ID
	// and Marker alone, its messages unread, so that a store with nothing
	// new is not read whole on every run.
	Unchanged func(id, marker string) bool
	// Prescanned is what a Prescanner's Prescan found of the history, for
	// the parse Stream starts.
	Prescanned string
}

// DiscoverOptions say where a harness looks. Readers read no environment
// themselves: Getenv is the environment, so tests give a scratch one.
type DiscoverOptions struct {
	// Home is the user's home directory; empty skips places under it.
	Home string
	// WorkDir is the current directory, for relative paths in variables.
	WorkDir string
	// Getenv looks up an environment variable; nil means none is set.
	Getenv func(string) string
	// ConfigDir is deja's configuration directory (aider's project list).
	ConfigDir string
	// Dirs, when set, replace the harness's default places (the
	// <harness>.dirs configuration key).
	Dirs []string
}

// Env returns the variable through Getenv, "" when Getenv is nil.
func (o DiscoverOptions) Env(name string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(name)
}

// Discovery is what a harness found and where it looked.
type Discovery struct {
	// Sources are the histories found, sorted by path.
	Sources []Source
	// Places are the directories or files looked at, each with why.
	Places []Place
	// Installed reports that the harness has run on this machine (its own
	// directory exists), so finding nothing deserves an explanation.
	Installed bool
	// Warnings are places that could not be read, each with what to fix.
	Warnings []string
}

// Place is one place a harness looked.
type Place struct {
	Path string
	// Why names what led there as a user would look it up: "default",
	// "CLAUDE_CONFIG_DIR", "claude.dirs".
	Why string
	// Exists reports whether the place was there to look in.
	Exists bool
}

// Source is one history file (or store) a harness found.
type Source struct {
	// Path is absolute with symlinks resolved.
	Path string
	// Reasons are the places that led to it, in the order the harness
	// looks; there is at least one.
	Reasons []Reason
	Size    int64
	ModTime time.Time
}

// Reason is one place that led discovery to a source.
type Reason struct {
	// Kind is the kind of place ("home", "env", "default", "config").
	Kind string
	// From is the directory, file or variable value the place is.
	From string
	// Name is how a user looks the place up (a variable, a config key, a
	// directory); empty means Kind followed by From.
	Name string
}

// String names the reason as a user would look it up.
func (r Reason) String() string {
	if r.Name != "" {
		return r.Name
	}
	if r.From == "" {
		return r.Kind
	}
	return r.Kind + " " + r.From
}

// ShellQuote quotes s for a POSIX shell when it needs quoting, for the
// commands a Resumer prints.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
