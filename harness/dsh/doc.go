// Package dsh reads DeepSeek Harness (dsh) session logs as the harness
// "dsh": it finds each session's current log under ~/.dsh/sessions (or
// $DSH_HOME/sessions), decodes its zstd frames, and parses it into the
// session's typed prompts, the model's answers and file/command records
// with their outcomes, linking forks and subagents to their parents.
//
// It knows nothing of storage or ranking. No dsh history is in the shared
// corpus; the facts were read from the dsh package documentation
// (zsagi1368/deepseek-harness-zDSH, packages/session/session-persistence-jsonl,
// session-format-v0-to-v1 and -v1-to-v2, fs/tool-fs, shell/tool-bash) and
// from a rival reader's notes written against dsh 0.1.1-rc.2
// (vshulcz/deja-vu docs/registry/deepseek.md); docs/FORMATS.md "DeepSeek
// Harness" lists them:
//
//   - Place: <root>/--<cwd slug>--/<session id>/session[.vN].jsonl[.zstd],
//     the root $DSH_HOME/sessions, else ~/.dsh/sessions, on every system.
//     A session directory keeps each format generation it was migrated
//     through, byte-identical; dsh reads the highest, and so does deja.
//   - Encoding: consecutive zstd frames, one for the header and one per
//     append batch; a torn final frame (dsh still writing, or killed) is
//     decoded as far as it goes, and only its whole lines are read.
//   - Header: the first line, {type:"session", version, id, createdAt (ms),
//     cwd, parentSession, isSeeded, origin:"subagent", delegationDepth}.
//   - Events {type, seq, time (ms), data}: user/message whose
//     data.source.kind is "user" is a prompt (plugins splice other kinds);
//     assistant/message's data.message.content text blocks are the answer,
//     its reasoning blocks are not; assistant/chunk text-delta events and
//     packed text-chunks rows (v0 and v1) are the same answer streamed, read
//     only when no complete message follows; tool/call names a tool and its
//     arguments, and tool/result its outcome.
//   - Lineage: a seeded session (a fork) starts with its parent's events,
//     cut by the last session/end-seed marker; they are skipped and the
//     parent linked. origin "subagent" marks a delegated agent's session.
//   - Resume: dsh ships no command that reopens a session (see
//     Reader.ResumeRefusal).
package dsh
