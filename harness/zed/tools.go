package zed

import (
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// tools says which tools' calls become records, by the name the model called
// (crates/agent/src/tools, and crates/assistant_tools before the agent
// moved): terminal (bash before it) runs a command, read_file reads a
// file, and the others change one. Directory listings, searches and
// fetches name no file touched.
func tools(name string) byte {
	switch name {
	case "terminal", "bash":
		return 'c'
	case "read_file":
		return 'r'
	case "edit_file", "streaming_edit_file", "write_file", "create_file", "find_replace_file", "delete_path", "move_path", "copy_path":
		return 'e'
	}
	return 0
}

// toolUse appends the records of one tool call and keeps it pending
// until its result.
func (b *session) toolUse(u *toolUse, line int) {
	in := &u.Input
	c := call{tool: u.Name, command: strings.TrimSpace(in.Command), at: len(b.s.Records)}
	kind, value, action := harness.FileRecord, in.Path, harness.Edited
	whole := in.Content
	if whole == nil {
		whole = in.Contents
	}
	es := edits(in.Edits)
	switch tools(u.Name) {
	case 0:
		return
	case 'c':
		kind, value, action, whole, es = harness.CommandRecord, c.command, "", nil, nil
	case 'r':
		action, whole, es = harness.Read, nil, nil
	}
	if u.Name == "move_path" || u.Name == "copy_path" {
		value = in.Destination
	}
	if kind == harness.FileRecord {
		value = b.path(value)
	}
	// One record an edit, as Zed applies them in turn.
	for i := 0; i < max(1, len(es)) && b.record(kind, value, action, line); i++ {
		r := &b.s.Records[len(b.s.Records)-1]
		switch {
		case whole != nil:
			r.Span = span("", *whole, true)
		case in.Find != nil && action == harness.Edited:
			r.Span = span(*in.Find, in.Replace, false)
		case len(es) > 0:
			r.Span = span(es[i].Old, es[i].New, false)
		}
	}
	if c.n = len(b.s.Records) - c.at; c.n > 0 && u.ID != "" {
		b.pending[u.ID] = c
	}
}

// span is an edit's old and new text, or a file's whole new text, as a
// record holds them.
func span(old, new string, whole bool) harness.Span {
	o, cutOld := harness.ClipSpan(old)
	n, cutNew := harness.ClipSpan(new)
	return harness.Span{Old: o, New: n, Whole: whole, Clipped: cutOld || cutNew}
}

// endCall sets the outcome of a call's records from its result, whose
// is_error says the tool failed or was refused (a file not there, an edit
// the user rejected). A failed edit keeps its record, marked failed and
// without its text; a failed read is dropped; a read has no outcome. An edit_file call of the agent's first generation carries no
// text of its own (another model wrote the edit), so its span is the
// file's new text from the output ({input_path, old_text, new_text,
// diff}; {error} when a streaming edit failed).
func endCall(recs []harness.Record, c call, r *toolResult) {
	switch tools(c.tool) {
	case 'r':
		if r.IsError {
			recs[0].Value = ""
		}
		return
	case 'c':
		recs[0].Outcome = terminalOutcome(c.command, resultText(r.Content), r.IsError)
		return
	}
	out := r.Output
	for i := range recs {
		recs[i].Outcome.Status = harness.Succeeded
		switch {
		case r.IsError || out != nil && out.Error != "":
			recs[i].Outcome.Status, recs[i].Span = harness.Failed, harness.Span{}
		case !recs[i].Span.Recorded() && out != nil && out.NewText != nil && strings.HasSuffix(c.tool, "edit_file"):
			recs[i].Span = span("", *out.NewText, true)
		}
	}
}

// terminalOutcome reads the terminal tool's answer (process_content in
// crates/agent/src/tools/terminal_tool.rs): the output in a ``` fence
// when the command exited 0 ("Command executed successfully." when it
// printed nothing); `Command "<command>" failed with exit code N.` then
// the fenced output; or that it timed out, was stopped by the user or
// ended without an exit status, then what it printed. An answer of no
// such shape (an older Zed's) keeps its text as the output and no status;
// an error (the command refused, or not run) failed.
func terminalOutcome(command, text string, isError bool) harness.Outcome {
	text = strings.TrimSpace(text)
	rest := strings.TrimPrefix(text, `Command "`+command+`" `)
	o := harness.Outcome{Status: harness.Failed}
	switch {
	case isError:
		return o
	case text == "Command executed successfully." || strings.HasPrefix(text, "```") || strings.HasPrefix(text, "Command output too long."):
		o, rest = harness.Outcome{Status: harness.Succeeded, Exit: harness.ExitStatus(0)}, "\n\n"+text
	case strings.HasPrefix(rest, "failed with exit code "):
		num, _, _ := strings.Cut(rest[len("failed with exit code "):], ".")
		code, err := strconv.Atoi(num)
		if err != nil {
			return harness.Outcome{Output: harness.ClipOutput(text)}
		}
		o = harness.Outcome{Status: harness.StatusOfExit(code), Exit: harness.ExitStatus(code)}
	case len(rest) < len(text) && strings.HasPrefix(rest, "timed out."),
		strings.HasPrefix(text, "The user stopped this command."), strings.HasPrefix(text, "Command terminated unexpectedly."):
	default:
		return harness.Outcome{Output: harness.ClipOutput(text)}
	}
	// What it printed is in a fence after a blank line; Zed may write more
	// after the fence.
	if i := strings.Index(rest, "\n\n```\n"); i >= 0 {
		if out := rest[i+5:]; strings.Contains(out, "\n```") {
			o.Output = harness.ClipOutput(out[:strings.LastIndex(out, "\n```")])
		}
	}
	return o
}
