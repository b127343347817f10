// Package gemini reads Gemini CLI's chat recordings: it finds the
// session files under ~/.gemini/tmp/<project>/chats, parses both the
// append-only JSONL recording and the older single-JSON file into sessions
// of messages and file/command records, and recovers the project directory
// the chat ran in.
//
// It knows nothing of storage, embeddings or the command line; the rules it
// follows are in shared/harness/FORMATS.md §3, checked against real files.
package gemini
