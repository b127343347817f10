// Package qwen reads Qwen Code's chat recordings as the harness "qwen": it
// finds the JSONL files under ~/.qwen/projects (or $QWEN_RUNTIME_DIR),
// parses each into its session of typed prompts, the model's answers and
// file/command records, links subagent transcripts to the session that
// ran them, and names sessions by Qwen Code's own session ids.
//
// It knows nothing of storage or ranking. The facts it relies on were read
// from QwenLM/qwen-code (Apache-2.0) and checked against four public chats
// (Qwen Code 0.5.1 and 0.14.0–0.14.1); docs/FORMATS.md "Qwen Code" lists
// them with their sources:
//
//   - Place: <runtime>/projects/<sanitizeCwd(cwd)>/chats/<sessionId>.jsonl,
//     the runtime folder $QWEN_RUNTIME_DIR, else a settings value, else
//     ~/.qwen (packages/core/src/config/storage.ts @013e660f,
//     getRuntimeBaseDir, getProjectDir). sanitizeCwd lower-cases the path
//     on Windows, then turns every byte but letters and digits into '-'
//     (packages/core/src/utils/paths.ts @060227c9). deja does not undo it:
//     every record carries its cwd, which is the project.
//   - Records (ChatRecord, packages/core/src/services/chatRecordingService.ts
//     @015346f1): uuid, parentUuid, sessionId, timestamp, type (user,
//     assistant, tool_result, system), subtype, cwd, version, message (a
//     Gemini Content: role user|model, parts of text, thought, functionCall,
//     functionResponse), systemPayload, agentId, isSidechain, forkedFrom.
//     The file is only appended to.
//   - Prompts: a user record without a subtype is the prompt as submitted;
//     its systemPayload.displayText, where newer builds write it, is the
//     text as the user wrote it, before hook context was added to the
//     parts. Parts after "--- Content from referenced files ---" are the
//     files an @-mention read in. mid_turn_user_message (typed while tools
//     ran) and realtime_message are the user's too; notification, cron and
//     goal_runtime user records are the CLI's.
//   - Answers: an assistant record's text parts; a part with thought:true
//     is reasoning and not kept. Tool results are tool_result records,
//     skipped unread.
//   - Records: functionCall parts (packages/core/src/tools/tool-names.ts):
//     edit (replace in older builds) and write_file edit file_path,
//     read_file reads file_path (absolute_path in older builds),
//     read_many_files reads paths, run_shell_command runs command. A
//     system at_command record lists the files an @-mention added
//     (filesRead), written as the files are read, beside the prompt (the
//     atCommandProcessor runs before the prompt is sent): the files go to
//     the prompt that follows, or to the one before when an answer comes
//     first. Every call is recorded, whatever its result.
//   - Subagents: a background subagent's transcript is
//     <project folder>/subagents/<sessionId>/agent-<agentId>.jsonl, whose
//     records carry the parent's sessionId, agentId and isSidechain:true
//     (packages/core/src/agents/agent-transcript.ts @015f2838). deja names
//     it qwen-<sessionId>-agent-<agentId>, linked to qwen-<sessionId> and
//     out of default recall; its first user record is the task it was
//     given, and a user record with externalInputKind "notification" is
//     the CLI's. Sidechain records inside a chat file are read the same way.
//   - Lineage: /branch copies the source session's records into the new
//     file, each with forkedFrom.sessionId: they are skipped and the
//     source is the session's parent. A parent_session system record
//     names the session that spawned this one (also its parent).
//   - Rewinds leave the rewound records in the file on a dead branch of
//     the uuid tree; deja keeps them, as turns that were said.
//   - Resume: qwen --resume <sessionId> (-r), run in the session's project
//     folder, since the CLI looks for the chat under the project's own
//     folder (mintlify.com/QwenLM/qwen-code/cli/options/resume; storage.ts).
//
// Where FORMATS-2.md and the source differ the source wins: the source
// writes subagent transcripts to subagents/<sessionId>/agent-<id>.jsonl
// beside chats/, not under it, and lists user subtypes (notification,
// cron, mid_turn_user_message) that FORMATS-2.md does not.
package qwen
