// Package claude reads Claude Code's session transcripts: it finds the
// JSONL files under ~/.claude/projects (or $CLAUDE_CONFIG_DIR/projects),
// parses each into its session and its subagent sessions of typed user
// text, assistant prose and file/command records, and names them with
// IDs made of Claude Code's own session ids.
//
// It knows nothing of storage or ranking; the rules it follows are the
// observed format in shared/harness/FORMATS.md §1, each cited where used.
package claude
