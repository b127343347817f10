// Package kimi reads the histories of both products behind the kimi
// command as the harness "kimi": the archived Python kimi-cli
// (~/.kimi, or $KIMI_SHARE_DIR) and Kimi Code (~/.kimi-code, or
// $KIMI_CODE_HOME). It finds their session files, rebuilds each session's
// prompts, answers and file/command records with how the calls ended,
// links subagents to the session that ran them, and names sessions by the
// products' own session ids.
//
// It knows nothing of storage or ranking. The facts it relies on were read
// from MoonshotAI/kimi-cli @4a550eff (and its 1.17.0 tag) and
// MoonshotAI/kimi-code @d723cc47, and checked against the public files in
// shared/harness/corpus/kimi; docs/FORMATS.md "Kimi" lists them:
//
//   - kimi-cli: <share>/sessions/<md5(workdir)>/<uuid>/wire.jsonl, one
//     {"timestamp": <epoch seconds>, "message": {type, payload}} line per
//     event after a {"type":"metadata"} line: TurnBegin and SteerInput
//     (user_input), StepBegin, ContentPart (text or think), ToolCall,
//     ToolResult, SubagentEvent (an event of a subagent, wrapped).
//     <share>/kimi.json maps the md5 back to the work directory. Sessions
//     older than the wire log have only context.jsonl (OpenAI-shaped
//     messages, no times) and context_sub_<n>.jsonl for subagents; newer
//     subagents write subagents/<agentId>/wire.jsonl of their own.
//   - Kimi Code: <home>/sessions/<workDirKey>/<sessionId>/agents/<agent>/
//     wire.jsonl, one {"type", …, "time": <epoch ms>} record a line:
//     config.update (cwd), turn.prompt (input, origin), context.append_loop_event
//     (step.begin, content.part, tool.call, tool.result),
//     context.append_message (the whole messages a migrated session holds),
//     forked (the end of the records a fork copied). state.json names each
//     agent's parentAgentId and the session a fork came from.
//
// Answers are the text parts of a step, joined; think parts are the
// model's reasoning and are not kept. Files are only appended to and are
// read as they stream, handed over a piece of finished turns at a time;
// a Prescan finds a fork's marker first, so that the records the fork
// copied from its source are read in the source's file alone. kimi-cli's
// /fork copies records without a marker: its copies stay in the fork.
package kimi
