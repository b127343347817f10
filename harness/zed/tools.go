package zed

import (
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// The tools whose calls become records, by the name the model called
// (crates/agent/src/tools, and crates/assistant_tools before the agent
// moved): terminal (bash before it) runs a command; the edit tools
// change a file; read_file reads one. Directory listings, searches and
// fetches name no file touched.
var (
	commandTools = map[string]bool{"terminal": true, "bash": true}
	editTools    = map[string]bool{
		"edit_file": true, "streaming_edit_file": true, "write_file": true, "create_file": true,
		"find_replace_file": true, "delete_path": true, "move_path": true, "copy_path": true,
	}
)

// toolUse appends the records of one tool call and keeps it pending
// until its result.
func (b *session) toolUse(u toolUse, line int) {
	if !commandTools[u.name] && !editTools[u.name] && u.name != "read_file" {
		return
	}
	in, ok := decodeInput(u.input)
	if !ok {
		// An input cut short while it streamed.
		return
	}
	c := call{tool: u.name, at: len(b.s.Records)}
	add := func(r harness.Record) {
		r.Turn, r.Line = b.turn, line
		b.s.Records = append(b.s.Records, r)
		c.n++
	}
	switch {
	case commandTools[u.name]:
		if c.command = strings.TrimSpace(in.Command); c.command != "" {
			add(harness.Record{Kind: harness.CommandRecord, Value: c.command})
		}
	case u.name == "read_file":
		if v := b.path(in.Path); v != "" {
			add(harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Read})
		}
	default:
		p := in.Path
		if u.name == "move_path" || u.name == "copy_path" {
			p = in.Destination
		}
		v := b.path(p)
		if v == "" {
			break
		}
		r := harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Edited}
		switch {
		case in.HasContent:
			text, cut := harness.ClipSpan(in.Content)
			r.Span = harness.Span{New: text, Whole: true, Clipped: cut}
		case in.HasFind:
			r.Span = replacement(in.Find, in.Replace)
		case len(in.Edits) > 0:
			// One record an edit, as Zed applies them in turn.
			last := len(in.Edits) - 1
			for _, e := range in.Edits[:last] {
				r.Span = replacement(e[0], e[1])
				add(r)
			}
			r.Span = replacement(in.Edits[last][0], in.Edits[last][1])
		}
		add(r)
	}
	if c.n > 0 && u.id != "" {
		b.pending[u.id] = c
	}
}

// replacement is the span of one old and new text.
func replacement(old, new string) harness.Span {
	o, cutOld := harness.ClipSpan(old)
	n, cutNew := harness.ClipSpan(new)
	return harness.Span{Old: o, New: n, Clipped: cutOld || cutNew}
}

// endCall sets the outcome of a call's records from its result, whose
// is_error says the tool failed or was refused (a file not there, an edit
// the user rejected). A failed edit keeps its record, marked failed and
// without its text; a failed read is dropped (keptRecords); a read has no
// outcome. An edit_file call of the agent's first generation carries no
// text of its own (another model wrote the edit), so its span is the
// file's new text from the output.
func endCall(recs []harness.Record, c call, r toolResult) {
	if c.tool == "read_file" {
		if r.isError {
			recs[0].Value = ""
		}
		return
	}
	if commandTools[c.tool] {
		recs[0].Outcome = terminalOutcome(c.command, resultText(r.content), r.isError)
		return
	}
	out := decodeOutput(r.output)
	failed := r.isError || out.Error != ""
	for i := range recs {
		recs[i].Outcome = harness.Outcome{Status: harness.Succeeded}
		if failed {
			recs[i].Outcome.Status, recs[i].Span = harness.Failed, harness.Span{}
			continue
		}
		if !recs[i].Span.Recorded() && out.HasNewText && (c.tool == "edit_file" || c.tool == "streaming_edit_file") {
			text, cut := harness.ClipSpan(out.NewText)
			recs[i].Span = harness.Span{New: text, Whole: true, Clipped: cut}
		}
	}
}

// terminalOutcome reads the terminal tool's answer (process_content in
// crates/agent/src/tools/terminal_tool.rs): the output in a ``` fence
// when the command exited 0 ("Command executed successfully." when it
// printed nothing); `Command "<command>" failed with exit code N.` then
// the fenced output; or that it timed out, was stopped by the user or
// ended without an exit status. An answer of no such shape (an older
// Zed's) keeps its text as the output and no status; an error (the
// command refused, or not run) failed.
func terminalOutcome(command, text string, isError bool) harness.Outcome {
	if isError {
		return harness.Outcome{Status: harness.Failed}
	}
	text = strings.TrimSpace(text)
	failed := `Command "` + command + `" failed with exit code `
	switch {
	case text == "Command executed successfully.":
		return harness.Outcome{Status: harness.Succeeded, Exit: harness.ExitStatus(0)}
	case strings.HasPrefix(text, "```") || strings.HasPrefix(text, "Command output too long."):
		return harness.Outcome{Status: harness.Succeeded, Exit: harness.ExitStatus(0), Output: harness.ClipOutput(unfence(text))}
	case strings.HasPrefix(text, failed):
		num, rest, _ := strings.Cut(text[len(failed):], ".")
		code, err := strconv.Atoi(num)
		if err != nil {
			return harness.Outcome{Status: harness.Failed, Output: harness.ClipOutput(text)}
		}
		return harness.Outcome{Status: harness.StatusOfExit(code), Exit: harness.ExitStatus(code), Output: harness.ClipOutput(unfence(strings.TrimSpace(rest)))}
	case strings.HasPrefix(text, `Command "`+command+`" timed out.`),
		strings.HasPrefix(text, "The user stopped this command."),
		strings.HasPrefix(text, "Command terminated unexpectedly."):
		// What it printed before, if anything, follows in a fence.
		var out string
		if i := strings.Index(text, "\n\n```"); i >= 0 {
			out = unfence(text[i+2:])
		}
		return harness.Outcome{Status: harness.Failed, Output: harness.ClipOutput(out)}
	}
	return harness.Outcome{Output: harness.ClipOutput(text)}
}

// unfence is a command's output without the ``` fence Zed wraps it in,
// the line saying it was cut, and what Zed wrote after the fence.
func unfence(s string) string {
	if strings.HasPrefix(s, "Command output too long.") {
		if _, rest, ok := strings.Cut(s, "\n\n"); ok {
			s = rest
		}
	}
	body, ok := strings.CutPrefix(s, "```\n")
	if !ok {
		return s
	}
	if i := strings.LastIndex(body, "\n```"); i >= 0 {
		return body[:i]
	}
	return strings.TrimSuffix(body, "```")
}

// keptRecords drops the reads that failed (marked by an empty value) and
// a file's second read in a turn: a read has no outcome to tell the two
// apart.
func keptRecords(recs []harness.Record) []harness.Record {
	type read struct {
		turn  int
		value string
	}
	seen := map[read]bool{}
	out := recs[:0]
	for _, r := range recs {
		if r.Value == "" {
			continue
		}
		if r.Action == harness.Read {
			k := read{r.Turn, r.Value}
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, r)
	}
	return out
}
