package pi

import (
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// The tools whose calls become records, by the names the agents give
// them: pi's read, edit, write and bash (packages/coding-agent/src/core/
// tools), OpenClaw's exec for a shell command, and omp's edit and write
// under the same names. Listing tools (ls, find, grep) name folders and
// patterns, not files, and make no record.
var (
	editTools  = map[string]bool{"edit": true, "write": true}
	readTools  = map[string]bool{"read": true}
	shellTools = map[string]bool{"bash": true, "exec": true}
)

// records returns the records one tool call that ran yields (a call with
// no toolResult did not run: its message was aborted). A read whose result
// was an error touched nothing (a missing file), so it yields none; a
// command is recorded whatever became of it, since it ran, and so is an
// edit, whose outcome then says it failed. An edit yields a record per
// replacement with its old and new text, a write one with the whole
// content.
func (c toolCall) records(cwd string, failed bool) []harness.Record {
	switch {
	case shellTools[c.name]:
		if cmd := strings.TrimSpace(c.args.command); cmd != "" {
			return []harness.Record{{Kind: harness.CommandRecord, Value: cmd}}
		}
	case editTools[c.name], readTools[c.name]:
		if failed && readTools[c.name] {
			return nil
		}
		p := c.args.path
		if strings.TrimSpace(p) == "" {
			p = c.args.filePath
		}
		if p = harness.RelPath(cwd, p); p == "" || p == "." {
			return nil
		}
		if readTools[c.name] {
			return []harness.Record{{Kind: harness.FileRecord, Value: p, Action: harness.Read}}
		}
		r := harness.Record{Kind: harness.FileRecord, Value: p, Action: harness.Edited}
		if c.args.content != nil {
			r.Span.New, r.Span.Clipped = harness.ClipSpan(*c.args.content)
			r.Span.Whole = true
		}
		if len(c.args.edits) == 0 {
			return []harness.Record{r}
		}
		out := make([]harness.Record, 0, len(c.args.edits))
		for _, e := range c.args.edits {
			r.Span = harness.Span{}
			var oc, nc bool
			r.Span.Old, oc = harness.ClipSpan(e.oldText)
			r.Span.New, nc = harness.ClipSpan(e.newText)
			r.Span.Clipped = oc || nc
			out = append(out, r)
		}
		return out
	}
	return nil
}

// resultOutcome is how a call ended, from its toolResult: isError is the
// only mark pi writes, and its bash tool ends a failed command's text
// with "Command exited with code N" (bash.ts); an exit without error is
// not 0 for certain (a command killed by a signal passes), so a success
// has no exit status.
func resultOutcome(isError bool, text string) harness.Outcome {
	o := harness.Outcome{Status: harness.Succeeded, Output: harness.ClipOutput(text)}
	if !isError {
		return o
	}
	o.Status = harness.Failed
	last := text[strings.LastIndexByte(strings.TrimRight(text, "\n"), '\n')+1:]
	if n, ok := strings.CutPrefix(strings.TrimSpace(last), "Command exited with code "); ok {
		if code, err := strconv.Atoi(n); err == nil && code != 0 {
			o.Exit = harness.ExitStatus(code)
		}
	}
	return o
}
