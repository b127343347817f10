// Package hermes reads Hermes Agent's sessions (NousResearch
// hermes-agent): the SQLite store state.db in each Hermes home (~/.hermes,
// %LOCALAPPDATA%\hermes, $HERMES_HOME) and in each of its profiles
// (profiles/<name>/state.db), every session's user and assistant messages,
// and its terminal, write_file, patch and read_file calls as command and
// file records with their outcomes, subagent (delegate_task) sessions
// linked to the session that ran them.
//
// It opens the store read-only and never locks it against Hermes; it
// knows nothing of deja's own storage. The rules follow
// shared/harness/FORMATS-2.md §14, checked against a real store and
// hermes-agent's hermes_state*.py and tools/file_tools.py.
package hermes
