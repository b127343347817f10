// Package kiro reads Kiro's conversations: the Kiro CLI's (and before it
// the Amazon Q Developer CLI's) SQLite store data.sqlite3, whose
// conversations_v2 table holds one row per conversation (key = the
// directory it ran in, conversation_id, value = the CLI's serialized
// ConversationState, created_at and updated_at in epoch milliseconds) and
// whose older conversations table holds one conversation per directory;
// and the Kiro IDE's chats, one JSON file per session under
// <User>/globalStorage/kiro.kiroagent/workspace-sessions/<base64 of the
// workspace>/, beside a sessions.json index: the layout of Continue's
// sessions, which continuedev.Parse reads.
//
// The Kiro CLI's newer session files (~/.kiro/sessions, written by its
// v2 and v3 agent engines) and the IDE's agent execution logs (which keep
// an IDE chat's full answers and tool calls) are counted by discovery and
// named in a warning, not read. The facts and their sources are in docs/FORMATS.md,
// "Kiro".
package kiro
