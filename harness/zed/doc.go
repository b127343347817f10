// Package zed reads the threads of Zed's built-in agent: one SQLite store,
// threads/threads.db in Zed's data directory, whose threads table holds a
// row per thread (a subagent's naming its parent_id) with the thread's
// document as zstd-compressed or plain JSON: version 0.3.0, whose messages
// are {"User":…}, {"Agent":…} and "Resume", or the older 0.2.0 and
// unversioned documents, whose messages have a role and segments.
//
// It finds the store in the data directory of every platform Zed runs on
// and in the zed.dirs setting, reads it read-only with its write-ahead log
// (harness.ReadSQLite), decompresses within harness.MaxDecoded, and knows
// nothing of storage or ranking. The facts it relies on, and their
// sources, are in docs/FORMATS.md ("Zed"). Zed records no time per
// message: a thread has its created_at and updated_at alone, so its
// session starts at created_at and its turns carry no time.
//
// A Zed thread reopens only inside Zed, from the agent panel's history;
// there is no command to print.
package zed
