// Package cursor reads Cursor's conversations: the IDE's chats in its
// state.vscdb SQLite stores (the global one under User/globalStorage and
// one per workspace under User/workspaceStorage/<hash>), the agent
// transcripts Cursor writes under ~/.cursor/projects/<slug>/agent-transcripts,
// with their subagents, and the cursor-agent CLI's chats in
// ~/.cursor/chats/<md5 of the cwd>/<agentId>/store.db.
//
// The IDE stores conversations in two layouts, both read:
//
//   - 2024: a workspace's ItemTable key composer.composerData holds
//     {allComposers: [{composerId, createdAt, conversation: [bubble…]}]},
//     whole conversations inline; a bubble's type is 1 for the user and 2
//     for the assistant, and it carries no time of its own.
//   - 2025 and later: the global cursorDiskKV table holds one row
//     composerData:<composerId> per conversation (its createdAt,
//     fullConversationHeadersOnly naming its bubbles in order, and
//     subComposerIds naming the conversations it ran as subagents) and one
//     row bubbleId:<composerId>:<bubbleId> per message, with createdAt as
//     an ISO time and the tool it ran in toolFormerData.
//
// Before composers, the IDE's chat panel kept its tabs in the ItemTable
// key workbench.panel.aichat.view.aichat.chatdata, {tabs: [{tabId,
// lastSendTime, bubbles: [{type: "user"|"ai", text}]}]}; those tabs are
// read too.
//
// The global database also holds Cursor's login tokens (ItemTable keys
// cursorAuth/*) and each composerData row holds encryption keys. Every
// query this package runs names the chat keys alone (the keys
// composer.composerData and workbench.panel.aichat.view.aichat.chatdata,
// and the key ranges composerData:… and bubbleId:…),
// and rows are decoded into the few fields deja keeps, so no other key or
// field is selected, copied or logged. Stores are opened read-only (with
// their write-ahead log; immutable when that cannot be done) and never
// locked against Cursor.
//
// Messages Cursor wrote without a time (every bubble of the 2024 layout,
// every assistant line of a transcript) are given the time of the message
// before them, or the conversation's start, and a warning of the history
// names them.
//
// The facts and their sources are in docs/FORMATS.md, "Cursor". Where the
// sources read disagree with shared/harness/FORMATS-2.md §1, this package
// follows the sources:
//
//   - bubble rows may hold JSON null (a live global store had 26 of 22,368
//     such rows); they are skipped, not counted as damage;
//   - the bubble's createdAt is an ISO string in the 2025 layout
//     (michaeldhood/chatrxiv docs/cursor/storage-reference.md @d28513a8),
//     while composerData's createdAt is epoch milliseconds.
//
// A cursor-agent chat store holds meta(key, value), whose key "0" is the
// hex of a JSON object (agentId, latestRootBlobId, createdAt), and
// blobs(id, data), content-addressed by sha256: JSON messages and
// protobuf nodes. The root blob's field 1 lists the chat's messages in
// order, by the 32 bytes of their ids; older roots stay in the store and
// are not read.
//
// Cursor has no command that reopens an IDE conversation or a transcript
// from a shell (a composer reopens only from the IDE's chat history), so
// ResumeCommand returns "" for those and deja resume says it knows no
// command; a cursor-agent chat reopens with cursor-agent --resume <id>,
// run in its project (coder/registry issue 747; devhints.io/cursor-cli
// names the same flag on the binary's newer name, agent).
package cursor
