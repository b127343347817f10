package amp

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// input is what deja reads of a tool call's input: the file (path) of
// Read, edit_file, create_file, undo_edit, delete_file and format_file,
// an edit's old and new text, a new file's content, and Bash's command
// (cmd; command is taken too).
type input struct {
	Path    string `json:"path"`
	OldStr  string `json:"old_str"`
	NewStr  string `json:"new_str"`
	Content string `json:"content"`
	Cmd     string `json:"cmd"`
	Command string `json:"command"`
}

// call turns one tool_use block into a record, kept pending until its
// tool_result answers it. Tools that only search (Grep, glob,
// codebase_search_agent), fetch, plan or run a subagent (Task, oracle)
// name no file or command and make no record.
func (p *parser) call(b *block, line int) {
	var in input
	if len(b.Input) > 0 && json.Unmarshal(b.Input, &in) != nil {
		p.warn("a tool call with an input of another shape")
		return
	}
	r := harness.Record{Kind: harness.FileRecord, Turn: p.turn, Line: line, Value: strings.TrimSpace(filePath(in.Path))}
	switch strings.ToLower(b.Name) {
	case "bash", "shell", "shell_command":
		r.Kind, r.Value = harness.CommandRecord, strings.TrimSpace(in.Cmd)
		if r.Value == "" {
			r.Value = strings.TrimSpace(in.Command)
		}
	case "read", "read_file":
		r.Action = harness.Read
	case "edit_file":
		r.Action = harness.Edited
		r.Span = span(in.OldStr, in.NewStr, false)
	case "create_file":
		r.Action = harness.Edited
		r.Span = span("", in.Content, true)
	case "undo_edit", "delete_file", "format_file":
		r.Action = harness.Edited
	default:
		return
	}
	if r.Value == "" {
		return
	}
	p.sess.Records = append(p.sess.Records, r)
	if b.ID != "" {
		p.pending[b.ID] = len(p.sess.Records) - 1
	}
}

// span bounds an edit's text for a record.
func span(old, new string, whole bool) harness.Span {
	o, c1 := harness.ClipSpan(old)
	n, c2 := harness.ClipSpan(new)
	return harness.Span{Old: o, New: n, Whole: whole, Clipped: c1 || c2}
}

// result is what deja reads of a finished run's result: Bash's output
// and exitCode.
type result struct {
	Output   string `json:"output"`
	ExitCode *int   `json:"exitCode"`
}

// answer sets a record's outcome from its call's run: done is success
// (for a command, its exit status decides), error, cancelled and
// rejected-by-user are failure, a run still in progress is no outcome.
// A command keeps its output, or the error's text.
func (p *parser) answer(r *harness.Record, rn *run) {
	switch rn.Status {
	case "done":
		r.Outcome.Status = harness.Succeeded
	case "error", "cancelled", "rejected-by-user":
		r.Outcome.Status = harness.Failed
	default:
		return
	}
	if r.Kind != harness.CommandRecord {
		return
	}
	var res result
	var text string
	if len(rn.Result) > 0 && json.Unmarshal(rn.Result, &res) != nil {
		_ = json.Unmarshal(rn.Result, &text) // a result written as a bare string
	}
	if res.ExitCode != nil {
		r.Outcome.Exit = harness.ExitStatus(*res.ExitCode)
		r.Outcome.Status = harness.StatusOfExit(*res.ExitCode)
	}
	out := res.Output
	if out == "" {
		out = text
	}
	if out == "" && r.Outcome.Status == harness.Failed {
		out = errorText(rn.Error)
	}
	r.Outcome.Output = harness.ClipOutput(out)
}

// errorText is a run's error, a string or an object with a message.
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var e struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &e)
	return e.Message
}

// filePath is the file a tool names: a path as given, or the path of a
// file: URI.
func filePath(s string) string {
	rest, ok := strings.CutPrefix(s, "file://")
	if !ok {
		return s
	}
	if u, err := url.PathUnescape(rest); err == nil {
		rest = u
	}
	if len(rest) >= 3 && rest[0] == '/' && rest[2] == ':' {
		return windowsPath(rest[1:])
	}
	return rest
}

// projectPath is the project a tree's URI names: the path of a file:
// URI (file:///c%3A/Users/x is C:\Users\x); a tree of another scheme or
// on another host is no project here.
func projectPath(uri string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(uri), "file://")
	if !ok || !strings.HasPrefix(rest, "/") {
		return ""
	}
	p := filePath("file://" + rest)
	if strings.HasPrefix(p, "/") || len(p) >= 3 && p[1] == ':' && p[2] == '\\' {
		return p
	}
	return ""
}

// windowsPath writes a Windows path with backslashes and its drive
// letter upper-case (VS Code's URIs lower-case it).
func windowsPath(p string) string {
	return strings.ToUpper(p[:1]) + strings.ReplaceAll(p[1:], "/", `\`)
}
