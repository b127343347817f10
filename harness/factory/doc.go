// Package factory reads Factory droid's sessions as the harness "factory":
// it finds the JSONL files under ~/.factory/sessions, parses each into its
// session of typed prompts, the model's answers and file/command records
// with how the calls ended, and names sessions by droid's own session ids.
//
// It knows nothing of storage or ranking. Factory publishes no source for
// droid; docs/FORMATS.md "Factory droid" says which facts were observed in
// a public session file and which were read from public third-party
// readers of the format:
//
//   - Place: ~/.factory/sessions/<cwd, separators turned into '-'>/<uuid>.jsonl
//     beside <uuid>.settings.json (observed, a Windows session); older
//     builds wrote sessions/<uuid>.jsonl flat. No variable moves it.
//   - Line 1: {"type":"session_start","id","title","sessionTitle","owner",
//     "version":2,"cwd"} (observed); cwd is the project.
//   - Then {"type":"message","id","timestamp","parentId","message":{"role",
//     "content"}} lines, content Anthropic-style blocks: text, thinking,
//     tool_use {id,name,input}, tool_result {tool_use_id,content,is_error}
//     (inferred). A user text's leading <system-reminder> blocks are
//     droid's context, not the prompt; a user message of tool results
//     alone is no prompt.
//   - Tools: Read (file_path), Create (file_path, content), Edit
//     (file_path, old_str, new_str), MultiEdit, ApplyPatch (input, a
//     "*** Begin Patch" text), Execute (command) (inferred).
//   - Subagents: a session the Task tool ran has a title opening with
//     "# Task Tool Invocation"; nothing names its parent.
//   - Resume: droid --resume <sessionId> (Factory's CLI reference).
package factory
