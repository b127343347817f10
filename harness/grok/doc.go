// Package grok reads Grok Build's sessions (xAI's coding agent, the grok
// command) as the harness "grok": it finds each session's updates.jsonl
// under ~/.grok/sessions (or $GROK_HOME/sessions), rebuilds its prompts,
// answers and file/command records with how the calls ended, links forks
// and subagents to the session they came from, and names sessions by
// Grok's own session ids.
//
// It knows nothing of storage or ranking. The facts it relies on were read
// from xai-org/grok-build @19d42e35 (Apache-2.0) and the Agent Client
// Protocol's tool-call schema; docs/FORMATS.md "Grok Build" lists them:
//
//   - Place: <grok home>/sessions/<url-encoded cwd>/<session uuid>/
//     updates.jsonl beside summary.json; a cwd whose encoding is over 255
//     bytes is a <slug>-<hash> folder holding a .cwd file.
//   - Lines: {"timestamp": <epoch s>, "method": "session/update" or
//     "_x.ai/session/update", "params": {sessionId, update, _meta}}, or,
//     written before the envelope, the notification alone. update is an
//     ACP session update tagged by sessionUpdate: user_message_chunk and
//     agent_message_chunk (one content block each, concatenated per
//     prompt and per answer), tool_call and tool_call_update (toolCallId,
//     kind, status, rawInput, locations, content, rawOutput); xAI's own
//     are turn_completed, rewind_marker and housekeeping.
//   - summary.json: info {id, cwd}, created_at, session_kind,
//     parent_session_id. A subagent's parent is named only by the parent's
//     subagents/<id>/ folder.
//
// Files are only appended to; a session is one file, re-read whole when it
// grows. Rewound turns stay in the file and are kept, as turns that were
// said; lines a fork copied from its source carry the source's event ids
// and are left to the source.
package grok
