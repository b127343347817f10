package zed

import (
	"encoding/json"
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

// toolInput is what deja reads of a tool call's input.
type toolInput struct {
	Command string `json:"command"`
	Path    string `json:"path"`
	// Destination is where move_path and copy_path write.
	Destination string `json:"destination_path"`
	// Content is a written file's whole text: write_file's and
	// streaming_edit_file's content, create_file's contents.
	Content  *string `json:"content"`
	Contents *string `json:"contents"`
	// Find and Replace are find_replace_file's.
	Find    *string `json:"find"`
	Replace *string `json:"replace"`
	// Edits are streaming_edit_file's, each old_text and new_text; the
	// model sometimes writes them as a JSON string.
	Edits json.RawMessage `json:"edits"`
}

type edit struct {
	Old string `json:"old_text"`
	New string `json:"new_text"`
}

// toolUse appends the records of one tool call and keeps it pending
// until its result.
func (b *session) toolUse(id, tool string, raw json.RawMessage, line int) {
	if !commandTools[tool] && !editTools[tool] && tool != "read_file" {
		return
	}
	var in toolInput
	if firstByte(raw) != '{' || json.Unmarshal(raw, &in) != nil {
		// An input cut short while it streamed.
		return
	}
	c := call{tool: tool, at: len(b.s.Records)}
	add := func(r harness.Record) {
		r.Turn, r.Line = b.turn, line
		b.s.Records = append(b.s.Records, r)
		c.n++
	}
	switch {
	case commandTools[tool]:
		if c.command = strings.TrimSpace(in.Command); c.command != "" {
			add(harness.Record{Kind: harness.CommandRecord, Value: c.command})
		}
	case tool == "read_file":
		if v := b.path(in.Path); v != "" {
			add(harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Read})
		}
	default:
		p := in.Path
		if tool == "move_path" || tool == "copy_path" {
			p = in.Destination
		}
		v := b.path(p)
		if v == "" {
			break
		}
		r := harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Edited}
		es := edits(in.Edits)
		switch whole := firstOf(in.Content, in.Contents); {
		case whole != nil:
			text, cut := harness.ClipSpan(*whole)
			r.Span = harness.Span{New: text, Whole: true, Clipped: cut}
		case in.Find != nil && in.Replace != nil:
			r.Span = replacement(*in.Find, *in.Replace)
		case len(es) > 0:
			// One record an edit, as Zed applies them in turn.
			for _, e := range es[:len(es)-1] {
				r.Span = replacement(e.Old, e.New)
				add(r)
			}
			r.Span = replacement(es[len(es)-1].Old, es[len(es)-1].New)
		}
		add(r)
	}
	if c.n > 0 && id != "" {
		b.pending[id] = c
	}
}

func firstOf(a, b *string) *string {
	if a != nil {
		return a
	}
	return b
}

// edits reads streaming_edit_file's edits, a list or a JSON string of one.
func edits(raw json.RawMessage) []edit {
	var out []edit
	if firstByte(raw) == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		raw = json.RawMessage(s)
	}
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

// replacement is the span of one old and new text.
func replacement(old, new string) harness.Span {
	o, cutOld := harness.ClipSpan(old)
	n, cutNew := harness.ClipSpan(new)
	return harness.Span{Old: o, New: n, Clipped: cutOld || cutNew}
}

// editOutput is an edit tool's output (EditFileToolOutput, and the
// Success and Error of StreamingEditFileToolOutput, which write_file
// shares): the file's whole new text, or the error that stopped it.
type editOutput struct {
	NewText *string `json:"new_text"`
	Error   string  `json:"error"`
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
		if r.IsError {
			recs[0].Value = ""
		}
		return
	}
	if commandTools[c.tool] {
		recs[0].Outcome = terminalOutcome(c.command, resultText(r.Content), r.IsError)
		return
	}
	var out editOutput
	if firstByte(r.Output) == '{' {
		_ = json.Unmarshal(r.Output, &out)
	}
	failed := r.IsError || out.Error != ""
	for i := range recs {
		recs[i].Outcome = harness.Outcome{Status: harness.Succeeded}
		if failed {
			recs[i].Outcome.Status, recs[i].Span = harness.Failed, harness.Span{}
			continue
		}
		if !recs[i].Span.Recorded() && out.NewText != nil && (c.tool == "edit_file" || c.tool == "streaming_edit_file") {
			text, cut := harness.ClipSpan(*out.NewText)
			recs[i].Span = harness.Span{New: text, Whole: true, Clipped: cut}
		}
	}
}

// resultText is a tool result's content as text: a string, {"Text": s}
// in any case, {"type": "text", "text": s}, or a list of them (the forms
// LanguageModelToolResultContent's Deserialize takes).
func resultText(raw json.RawMessage) string {
	switch firstByte(raw) {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return ""
		}
		for k, v := range obj {
			if strings.EqualFold(k, "text") {
				var s string
				_ = json.Unmarshal(v, &s)
				return s
			}
		}
	case '[':
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return ""
		}
		var texts []string
		for _, item := range list {
			texts = append(texts, resultText(item))
		}
		return strings.Join(texts, "\n")
	}
	return ""
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
