// Package pi reads the session transcripts of pi (the pi coding agent,
// badlogic/pi-mono), of OpenClaw, which embeds pi's agent and writes its
// format, and of omp (Oh My Pi, can1357/oh-my-pi, a fork of pi). One
// reader serves the three; a session's ID says which agent wrote it:
// "pi-<id>", "openclaw-<id>" or "omp-<id>", <id> being the header's id.
// The agent is told by the transcript's place (AgentOf).
//
// The facts it relies on, with their sources (docs/FORMATS.md, "pi,
// OpenClaw and omp", has them in full):
//
//   - Places. pi: ${PI_CODING_AGENT_DIR:-~/.pi/agent}/sessions/
//     --<cwd, its leading separator dropped and / \ : made ->--/
//     <ISO time, : and . made ->_<uuid>.jsonl (pi-mono @83378aad
//     packages/coding-agent/src/config.ts getAgentDir,
//     src/core/session-manager.ts getDefaultSessionDir and newSession).
//     omp: ~/.omp/agent/sessions, ~/.omp/profiles/<name>/agent/sessions,
//     and $XDG_DATA_HOME/omp/sessions once that folder exists
//     (oh-my-pi packages/utils/src/dirs.ts, getSessionsDir).
//     OpenClaw: ${OPENCLAW_STATE_DIR:-~/.openclaw}/agents/<agentId>/
//     sessions/<sessionId>.jsonl beside sessions.json (openclaw
//     src/config/sessions/paths.ts, resolveAgentSessionsDir).
//   - The first line is the header {type:"session", version, id,
//     timestamp, cwd, parentSession?}; every later line is an entry
//     {type, id, parentId, timestamp}. Message entries carry
//     message {role: user|assistant|toolResult|bashExecution|custom,
//     content, timestamp (ms)}; user content is a string or text and image
//     blocks, assistant content text, thinking and toolCall {id, name,
//     arguments} blocks, and a toolResult names its toolCallId and
//     isError (session-manager.ts; packages/ai/src/types.ts;
//     src/core/messages.ts).
//   - The entries form a tree by parentId: /tree moves the leaf to an
//     earlier entry and the next entry is written as its child, so a
//     transcript holds every branch taken. pi writes each entry by
//     appending it (SessionManager._persist) and, on load, takes the
//     last entry as the current leaf (_buildIndex), so the branch pi
//     shows is the path from the last entry back to the root. An entry is
//     written after its parent, so that branch is in file order, and so is
//     each abandoned one: deja reads every message in file order, which is
//     the order things were said, and keeps the turns of abandoned
//     branches with the rest (they were typed and answered). Compaction
//     and branch summaries are the model's summaries and are not read.
//   - Prompts are user messages' text; the assistant's prose its text
//     blocks, never thinking. Records come from toolCall blocks: read
//     (read), edit and write (edited), bash and OpenClaw's exec
//     (commands). A call with no toolResult did not run (its message was
//     aborted) and makes no record; a read whose result has isError
//     touched nothing and makes none; a command or edit that ran is
//     recorded whatever its result, with isError as its outcome (a
//     failed bash's exit status from its "Command exited with code N"
//     line, bash.ts), each edit pair's old and new text and a write's
//     content. A bashExecution message is a command the user ran with
//     '!', with its exitCode and output.
//   - The project is the header's cwd. OpenClaw's cwd is its workspace
//     (~/.openclaw/workspace, or workspace-<agentId>), where its tools
//     run, not a code project: deja uses it as the project all the same,
//     so one agent's sessions share one project.
//   - OpenClaw's user messages hold what its gateway wrapped the typed
//     text in: "System:" lines, labelled "(untrusted metadata)" blocks and
//     a "[Sun 2026-04-19 21:12 MDT]" stamp. They are taken off the prompt
//     (stripEnvelope). Its answers may open with reply directives
//     ([[reply_to_current]], [[reply_to:<id>]], [[audio_as_voice]]) that
//     its channels act on; they are taken off the prose (stripDirectives).
//   - OpenClaw's sessions.json maps each session key (agent:main:main) to
//     the session it holds now; a key of the form
//     agent:<id>:subagent:<id>, or with spawnedBy, is a subagent's, and
//     its session is a subagent session linked to the session its
//     spawning key holds. Only sessionId and spawnedBy are read.
//   - OpenClaw writes a chat thread to <sessionId>-topic-<topic>.jsonl
//     (paths.ts, resolveSessionTranscriptPathInDir) under the session's
//     header id; its ID is then the file's name, "openclaw-<sessionId>-
//     topic-<topic>", when that is a valid ID.
//   - A pi fork's header names the transcript it came from
//     (parentSession, a path): the session is linked to that one.
//   - Resume: `pi --session <id>` (cli/args.ts, main.ts
//     resolveSessionPath, which takes an id prefix), `omp --resume <id>`
//     (cli/flag-tables.ts), `openclaw tui --session <key>` (OpenClaw's
//     docs/cli/tui.md); see Reader.ResumeCommand.
//
// Where FORMATS-2.md §4 and the source differ: FORMATS-2 gives pi's resume
// as `pi --session <path>`; pi's main.ts also takes a session id there,
// which is what deja prints. FORMATS-2 §5 gives OpenClaw's resume as
// `openclaw chat --session <key>`; OpenClaw's documented command is
// `openclaw tui --session <key>`, which deja prints.
package pi
