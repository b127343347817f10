// Package continuedev reads the sessions of Continue, its VS Code and
// JetBrains extensions and its cn CLI, as the harness "continue" (the
// package cannot be named continue, a Go keyword): it finds the session
// files under ~/.continue/sessions (or $CONTINUE_GLOBAL_DIR/sessions),
// parses each into its session of typed prompts, answers and file and
// command records, and names sessions by Continue's own session ids.
//
// It knows nothing of storage or ranking. The facts it relies on were
// read from continuedev/continue (Apache-2.0) @d0a3c0b6 and the commits
// named, and checked against three public sessions of the VS Code
// extension and their index (May 2025); docs/FORMATS.md "Continue" lists
// them with their sources:
//
//   - Place: <global>/sessions/<sessionId>.json, one session per file,
//     beside the index sessions.json. <global> is $CONTINUE_GLOBAL_DIR,
//     else os.homedir()/.continue on every system (core/util/paths.ts).
//     Nothing else in the global folder is opened (config files there
//     hold keys).
//   - Session file (core/util/history.ts save): {sessionId, title,
//     workspaceDirectory, history, mode?, chatModelTitle?, usage?},
//     rewritten whole on each save; builds of 2024 wrote history first.
//     history is ChatHistoryItem[] (core/index.d.ts): {message: {role,
//     content, toolCalls?, toolCallId?}, contextItems, editorState?,
//     promptLogs?, toolCallStates?, reasoning?, conversationSummary?}.
//   - Times: no message has one. The start is the index entry's
//     dateCreated (epoch milliseconds as a string, set at the first save),
//     else the file's modification time (see started).
//   - Project: workspaceDirectory, a file: URI in the extensions (other
//     schemes, remote windows, are no project), a plain path in cn.
//   - Prompts: a user entry's typed text, from the editor's TipTap
//     document where the extensions keep one (the message content holds
//     highlighted code and prompt files besides), else its text parts. cn's
//     own "continue" after a compaction is not a prompt.
//   - Answers: an assistant entry's text, less a leading <think> span and
//     a compaction summary; thinking, system and tool entries are not text.
//   - Records: context items with a file uri and the editor's code blocks
//     are files added; tool calls (tools.go) are files read or edited and
//     commands, with their status, output, exit and edit text where
//     Continue keeps them.
//   - Resume: cn --fork <sessionId> in the project: Continue has no resume
//     by id (cn --resume reopens the session written last), and --fork
//     carries the whole history into a new session.
//
// Where FORMATS-2.md §13 and the source differ the source wins: sessions
// do carry tool calls (toolCallStates and tool entries, in agent mode and
// in cn), which the collected sessions, all chat mode, do not show.
package continuedev
