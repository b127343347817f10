// Package cline reads the histories of Cline and of its forks Roo Code
// and Kilo Code, which keep one task format, as the harness "cline".
//
// Two stores are read, each file rewritten whole by the agent and so read
// whole again when it changes (a FileReader whose one session spans the
// file; only turns whose content changed are stored again):
//
//   - The Cline SDK store, written by the cline CLI and by current
//     extension builds: sessions/<id>/<id>.messages.json, an object
//     {version, agent, sessionId, messages:[{role, content:[…], ts?}]},
//     with the manifest <id>.json beside it (cwd, started_at,
//     metadata.fork.forkedFromSessionId). The folder is
//     $CLINE_SESSION_DATA_DIR, else $CLINE_DATA_DIR/sessions, else
//     $CLINE_DIR/data/sessions, else ~/.cline/data/sessions (cline/cline
//     @21cb8d25 sdk/packages/shared/src/storage/paths.ts).
//   - The extensions' task folders, <globalStorage>/<extension>/tasks/<id>/
//     api_conversation_history.json, a bare array of Anthropic messages,
//     with ui_messages.json and task_metadata.json beside it (which deja
//     does not read) and, for Roo Code and Kilo Code, history_item.json.
//     The extension folders are saoudrizwan.claude-dev (Cline),
//     rooveterinaryinc.roo-cline (Roo Code) and kilocode.kilo-code (Kilo
//     Code), in the globalStorage of VS Code, VS Code Insiders, VSCodium,
//     Cursor and Windsurf, and of their remote servers.
//
// Session IDs say which extension wrote a session: cline-<task id> for
// Cline's tasks (13-digit epoch milliseconds, which also give the start)
// and for SDK sessions (1784094124598_rruoq), cline-roo-<task id> for Roo
// Code, cline-kilo-<task id> for Kilo Code (UUIDs), and
// cline-<session id>.<agent> for an SDK sub-agent transcript
// (<agent>.messages.json, agent "subagent" or "teammate", in the session's
// folder), linked to that session and out of default recall. A Roo Code or
// Kilo Code subtask, whose history_item.json names its parentTaskId, is
// likewise a subagent session linked to the task that delegated it. An SDK
// session forked from another names that one as its parent.
//
// Prompts are what the user typed, not what the extension wraps round it.
// In a task folder a user message holds the typed text only inside these
// tags: <task> round the first prompt, <feedback> round a reply to a
// finished task or to a refused tool call, <answer> round the answer to a
// question, <user_message> round new instructions when a task resumes
// ("[TASK RESUMPTION] …"; its <previous_message> repeats old input and is
// not read) or a plan is answered (cline/cline src/core/task/index.ts and
// src/core/prompts/responses.ts; RooCodeInc/Roo-Code src/core/task/Task.ts).
// Everything else in a user message is the extension's: tool results,
// which Cline writes as user text blocks opening "[read_file for 'a.go']
// Result:" rather than tool_result blocks, <environment_details> blocks
// and reminders ("# task_progress RECOMMENDED"). A tag counts in a tool
// result only within 400 bytes of its header, since a file's or command's
// output may hold the same tag. Roo Code's native tool calls answer in
// tool_result blocks, read the same way. In the SDK store the runtime
// wraps typed text in <user_input mode="act"> or <user_command
// slash="…">, and adds <mode_notice>, <file_content path="…"> and
// <environment_details> blocks; the wrappers are removed and the added
// blocks dropped (cline/cline sdk formatUserInputBlock). Both stores keep
// the messages compaction hides from the model (Cline's
// conversationHistoryDeletedRange, Roo Code's condenseParent and
// truncationParent): they were said, so they stay searchable.
//
// The assistant's prose is its text blocks, less <thinking> spans (where
// older releases put the model's reasoning) and tool calls written as XML
// in the text (releases before native tool calls), and the words of the
// tools the user reads as the answer: attempt_completion's result,
// ask_followup_question's question, plan_mode_respond's response. Thinking
// blocks, Roo Code's reasoning entries and its condensing summaries
// (isSummary) are not prose.
//
// Records come from tool_use blocks: read_file and read_files are files
// read; write_to_file, replace_in_file, apply_diff, insert_content,
// search_and_replace, edit_file and editor files edited, apply_patch's
// "*** Add/Update/Delete File:" lines too; execute_command and
// run_commands commands; an SDK file block or <file_content> a file added
// with @. A task folder of the XML era, with no tool_use blocks, takes its
// records from the tool result headers instead.
//
// The project is the manifest's cwd (SDK) or history_item.json's workspace
// (Roo Code, Kilo Code), else the first "# Current Working Directory (…)"
// (Cline) or "# Current Workspace Directory (…)" (Roo Code) line of the
// environment details. Cline keeps the cwd in state/taskHistory.json too,
// which deja does not read. Times are each message's ts (epoch
// milliseconds) where the build writes one; Cline's task folders of early
// 2026 have none, and their session starts at the task id's time.
//
// Where shared/harness/FORMATS-2.md and the agents' source differ, the
// source wins: FORMATS-2.md §3.2 says the SDK's user text blocks are the
// typed text, while the SDK runtime wraps it in <user_input> (cline/cline
// sdk packages, formatUserInputBlock in the prompt formatting module); and
// §3.3 lists only <task> and tool results in a task folder's user turns,
// while follow-ups arrive in <feedback>, <answer> and <user_message>.
//
// Resume: `cline --id <id>` in the project for an SDK session (ids with a
// '_'). An extension task reopens only from the extension's task history
// panel, and an SDK sub-agent only through its session; ResumeCommand
// returns "" for both.
package cline
