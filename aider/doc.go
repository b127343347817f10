// Package aider reads aider's chat histories: it finds .aider.chat.history.md
// files, parses them into sessions of messages and file/command records, and
// names each session with a stable ID.
//
// It knows nothing of storage, embeddings or the command line; the rules it
// follows are aider's own writer (io.py's append_chat_history) as documented
// in shared/aider/FORMAT.md, checked against real histories.
package aider
