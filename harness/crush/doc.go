// Package crush reads Crush's sessions (charmbracelet/crush): one SQLite
// store per project, <project>/.crush/crush.db, run in WAL mode, whose
// sessions table lists the conversations (a sub-agent's with its
// parent_session_id) and whose messages table holds each message's parts
// as JSON, [{type, data}]: text, reasoning, tool_call, tool_result,
// finish, image_url, binary and shell_command.
//
// It finds the stores through Crush's own list of projects (projects.json
// in its global data directory), the crush.dirs setting, the project the
// command runs in and the projects deja's aider list names, and reads
// each store read-only, with its write-ahead log, where committed rows
// may live alone (harness.ReadSQLite). It knows nothing of storage or
// ranking. The facts it relies on, and their sources, are in
// docs/FORMATS.md ("Crush"); where they differ from the schema's own
// comments, the rows win: created_at is written by strftime('%s') in
// seconds, not the milliseconds the migration's comment says, and both
// are read, told apart by size.
//
// Crush resumes a session with crush --session <id> run in its project,
// whose .crush directory holds the store; a sub-agent's session is reopened
// only through its parent's.
package crush
