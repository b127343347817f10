// Package codex reads Codex CLI's rollouts: it finds the rollout-*.jsonl
// (and zstd-compressed rollout-*.jsonl.zst) files under ~/.codex/sessions
// (or $CODEX_HOME/sessions) and archived_sessions, parses each into its
// session of typed user text, assistant prose and file/command records,
// and names it codex-<id> with Codex's own session id.
//
// It knows nothing of storage or ranking; the rules it follows are the
// observed format in shared/harness/FORMATS.md §2, each cited where used.
package codex
