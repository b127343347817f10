// Package goose reads Goose's sessions (Block's open-source agent): the
// SQLite store sessions.db that Goose 1.10 and later keep in their data
// directory, and the per-session JSONL files of the releases before it,
// which stay on disk beside the store. Each session's user prompts,
// answers, shell commands and file edits become messages and records,
// with each call's outcome where its tool response says it.
//
// It opens the store read-only and never locks it against Goose; it knows
// nothing of deja's own storage. The rules follow shared/harness/
// FORMATS-2.md §9 and Goose's own source (docs/FORMATS.md names both).
package goose
