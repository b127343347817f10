// Package amp reads the threads of Amp, Sourcegraph's coding agent (its
// amp CLI and editor extensions), as the harness "amp": it finds the
// thread files, parses each into its session of typed prompts, answers and
// file and command records, and names sessions by Amp's own thread ids.
//
// It knows nothing of storage or ranking. No real thread file was
// collected; the facts below come from third-party readers and notes
// (docs/FORMATS.md "Amp" lists them, observed against inferred):
//
//   - Place: ${XDG_DATA_HOME:-~/.local/share}/amp/threads/T-<uuid>.json,
//     one thread per file, rewritten whole as the thread grows; editor
//     builds before the move kept them in <editor>/User/globalStorage/
//     sourcegraph.amp/threads3/.
//   - Thread: {v, id, created (epoch ms), title, agentMode, env.initial
//     {trees[{uri, repository}]}, messages[{role, messageId, content[],
//     state, usage, meta{sentAt}}]}; content blocks are Anthropic's (text,
//     thinking, tool_use {id, name, input}), and a tool's answer is a
//     tool_result block {toolUseID, run{status, result, error}} in the
//     next user message.
//   - Project: the first tree's file: URI.
//   - Records: Read, edit_file, create_file, undo_edit, delete_file and
//     format_file name files; Bash names commands, with run.result's
//     output and exitCode.
//   - Resume: amp threads continue <T-id>.
package amp
