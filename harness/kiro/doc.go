// Package kiro reads Kiro's conversations: the Kiro CLI's (and before it
// the Amazon Q Developer CLI's) SQLite store data.sqlite3, whose
// conversations_v2 table holds one row per conversation (key = the
// directory it ran in, conversation_id, value = the CLI's serialized
// ConversationState, created_at and updated_at in epoch milliseconds) and
// whose older conversations table holds one conversation per directory;
// and the Kiro IDE's chats, one JSON file per session under
// <User>/globalStorage/kiro.kiroagent/workspace-sessions/<base64 of the
// workspace>/, beside a sessions.json index: the layout of Continue's
// sessions, which continuedev.Parse reads; and the session files of the
// CLI's newer engines under ~/.kiro/sessions: cli/<session_id>.jsonl (a
// {kind, data} record a line: prompts, answers, tool calls and their
// results) beside its <session_id>.json header, and
// <workspace>/sess_<id>/messages.jsonl ({timestamp, payload: {type,
// content}} lines, of which the prompts and answers are read) beside its
// session.json.
//
// The IDE's agent execution logs (which keep an IDE chat's full answers
// and tool calls) are counted by discovery and named in a warning, not
// read. The facts and their sources are in docs/FORMATS.md, "Kiro".
package kiro
