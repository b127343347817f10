// Package opencode reads OpenCode's sessions: it finds the SQLite store
// (opencode.db, or opencode-<channel>.db) in OpenCode's data directory,
// and the JSON storage trees of the releases before it, and reads each
// session's messages and parts into messages and file/command records,
// with subagent sessions linked to the session that ran them.
//
// It opens the store read-only and never locks it against OpenCode; it
// knows nothing of deja's own storage. The rules follow
// shared/harness/FORMATS.md §4, checked against real stores.
package opencode
