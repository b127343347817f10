package continuedev

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// call is one tool call: from a message's toolCalls ({id, type,
// function: {name, arguments}}, the arguments a JSON string), or from a
// ToolCallState ({toolCallId, toolCall, status, parsedArgs, output}),
// which the extensions and cn keep beside the message (core/index.d.ts).
type call struct {
	id, name, status string
	// args is the arguments' JSON object: the state's parsedArgs where
	// it has them, else the call's arguments, which argText holds
	// instead when they are a JSON string (raw, unescaped only when the
	// call makes a record).
	args, argText []byte
	// output are the state's output context items; hasOutput says the
	// state held them.
	output    []output
	hasOutput bool
}

// output is one context item of a call's output: its content (a raw
// JSON string body), the status line a terminal command's item carries
// ("Command completed", "Command failed with exit code 2") and the file
// it names.
type output struct {
	content []byte
	status  string
	uri     string
}

// readCall reads a ToolCall or ToolCallDelta.
func (p *parser) readCall() call {
	sc := &p.sc
	var c call
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "id":
			c.id = sc.String()
		case "function":
			sc.Object(func(key []byte) bool {
				switch string(key) {
				case "name":
					c.name = sc.String()
				case "arguments":
					if sc.Kind() == '"' {
						c.argText = sc.RawString()
					} else {
						c.args = p.raw()
					}
				default:
					return false
				}
				return true
			})
		default:
			return false
		}
		return true
	})
	return c
}

// readState reads a ToolCallState. Its tool (the whole definition) and
// mcpUiState are skipped unread.
func (p *parser) readState() call {
	sc := &p.sc
	var c call
	var id string
	var parsed []byte
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "toolCallId":
			id = sc.String()
		case "toolCall":
			c = p.readCall()
		case "status":
			c.status = sc.String()
		case "parsedArgs":
			if sc.Kind() != '{' {
				return false
			}
			parsed = p.raw()
		case "output":
			c.hasOutput = sc.Kind() == '['
			sc.Array(func() { c.output = append(c.output, p.readOutput()) })
		default:
			return false
		}
		return true
	})
	if id != "" {
		c.id = id
	}
	if len(parsed) > 2 {
		c.args, c.argText = parsed, nil
	}
	return c
}

// readOutput reads one context item of a call's output.
func (p *parser) readOutput() output {
	sc := &p.sc
	var o output
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "content":
			o.content = sc.RawString()
		case "status":
			o.status = sc.String()
		case "uri":
			o.uri = p.readURI()
		default:
			return false
		}
		return true
	})
	return o
}

// toolKind says what a tool's call records.
type toolKind int

const (
	readTool     toolKind = iota + 1 // reads filepath or file_path
	openFileTool                     // reads the file its output names
	editTool                         // edits the file, its text not given as old and new
	replaceTool                      // replaces old_string with new_string
	multiTool                        // one replacement per edits entry
	writeTool                        // writes the whole file
	commandTool                      // runs command
)

// tools are the calls that touch a file or run a command, by name with
// any "builtin_" prefix removed (the extensions' built-in tools carried
// it from December 2024 to July 2025: core/tools/builtIn.ts), for the
// extensions' tools (core/tools/definitions) and cn's (extensions/cli/
// src/tools). Searches, listings, web fetches, rules, diffs and MCP tools
// make no record.
var tools = map[string]toolKind{
	"read_file":                  readTool,
	"read_file_range":            readTool,
	"read_currently_open_file":   openFileTool,
	"edit_existing_file":         editTool,
	"search_and_replace_in_file": editTool,
	"single_find_and_replace":    replaceTool,
	"multi_edit":                 multiTool,
	"create_new_file":            writeTool,
	"run_terminal_command":       commandTool,
	"Read":                       readTool,
	"Edit":                       replaceTool,
	"MultiEdit":                  multiTool,
	"Write":                      writeTool,
	"Bash":                       commandTool,
}

// toolRecords turns a call into its records, each with the outcome the
// call's state gives: status done is ok, errored and canceled failed; a
// call still generating, awaiting approval or running has none.
func toolRecords(c call) []harness.Record {
	kind := tools[strings.TrimPrefix(c.name, "builtin_")]
	if kind == 0 {
		return nil
	}
	status := statusOf(c.status)
	if kind == openFileTool {
		var out []harness.Record
		for _, o := range c.output {
			if f := filePath(o.uri); f != "" {
				out = append(out, harness.Record{Kind: harness.FileRecord, Value: f, Action: harness.Read, Outcome: harness.Outcome{Status: status}})
			}
		}
		return out
	}
	raw := c.args
	if raw == nil && c.argText != nil {
		raw = []byte(jsonscan.Unescape(c.argText))
	}
	args := decodeArgs(raw)
	if kind == commandTool {
		cmd := strings.TrimSpace(argString(args.Command))
		if cmd == "" {
			return nil
		}
		var out, line []string
		for _, o := range c.output {
			out = append(out, jsonscan.Unescape(o.content))
			if o.status != "" {
				line = append(line, o.status)
			}
		}
		// Continue joins a call's output items with a blank line
		// (core/util/messageContent.ts renderContextItems).
		return []harness.Record{{Kind: harness.CommandRecord, Value: cmd,
			Outcome: commandOutcome(status, strings.Join(out, "\n\n"), strings.Join(line, "\n"))}}
	}
	file := filePath(argString(args.Filepath))
	if file == "" {
		file = filePath(argString(args.FilePath))
	}
	if file == "" {
		return nil
	}
	rec := harness.Record{Kind: harness.FileRecord, Value: file, Action: harness.Edited, Outcome: harness.Outcome{Status: status}}
	switch kind {
	case readTool:
		rec.Action = harness.Read
	case replaceTool:
		rec.Span = replaceSpan(argString(args.OldString), argString(args.NewString))
	case writeTool:
		body, ok := asString(args.Contents)
		if !ok {
			body, ok = asString(args.Content)
		}
		if ok {
			rec.Span.New, rec.Span.Clipped = harness.ClipSpan(body)
			rec.Span.Whole = true
		}
	case multiTool:
		var out []harness.Record
		for _, e := range args.edits() {
			r := rec
			r.Span = replaceSpan(argString(e.OldString), argString(e.NewString))
			out = append(out, r)
		}
		if len(out) > 0 {
			return out
		}
	}
	return []harness.Record{rec}
}

func replaceSpan(oldText, newText string) harness.Span {
	var sp harness.Span
	var cutOld, cutNew bool
	sp.Old, cutOld = harness.ClipSpan(oldText)
	sp.New, cutNew = harness.ClipSpan(newText)
	sp.Clipped = cutOld || cutNew
	return sp
}

func statusOf(s string) harness.Status {
	switch s {
	case "done":
		return harness.Succeeded
	case "errored", "canceled":
		return harness.Failed
	}
	return ""
}

// commandOutcome is how a command ended: status from its call's state,
// output from its output items (or the tool message that answered it),
// and an exit status where Continue wrote one. The extensions' terminal
// tool returns normally whatever the command's exit, so its state is
// done even when the command failed: the item's status line says
// "Command failed with exit code N", "Command failed with: …" or
// "Command timed out", and "Command completed" for an exit of 0 or a
// signal, so no exit status is taken from it
// (core/tools/implementations/runTerminalCommand.ts). cn's Bash fails the
// call when a command exits non-zero with something on stderr, and the
// output then opens "Error executing tool Bash: Error (exit code N): "
// (extensions/cli/src/tools/runTerminalCommand.ts; stream/
// streamChatResponse.helpers.ts); any other exit is done.
func commandOutcome(status harness.Status, out, statusLine string) harness.Outcome {
	o := harness.Outcome{Status: status, Output: harness.ClipOutput(out)}
	code, ok := exitCode(statusLine)
	if !ok && strings.HasPrefix(out, "Error executing tool ") {
		first, _, _ := strings.Cut(out, "\n")
		code, ok = exitCode(first)
	}
	switch {
	case ok:
		o.Exit, o.Status = harness.ExitStatus(code), harness.StatusOfExit(code)
	case strings.Contains(statusLine, "Command failed") || strings.Contains(statusLine, "timed out"):
		o.Status = harness.Failed
	case o.Status == "" && strings.HasPrefix(statusLine, "Command completed"):
		o.Status = harness.Succeeded
	}
	return o
}

// exitCode reads the number after the first "exit code " in s.
func exitCode(s string) (int, bool) {
	_, rest, ok := strings.Cut(s, "exit code ")
	if !ok {
		return 0, false
	}
	end := 0
	if end < len(rest) && rest[end] == '-' {
		end++
	}
	for end < len(rest) && '0' <= rest[end] && rest[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(rest[:end])
	return n, err == nil
}

// args are the arguments deja reads of a call, each value undecoded
// (a model may give any of them another type).
type args struct {
	Filepath  json.RawMessage `json:"filepath"`
	FilePath  json.RawMessage `json:"file_path"`
	Command   json.RawMessage `json:"command"`
	Contents  json.RawMessage `json:"contents"`
	Content   json.RawMessage `json:"content"`
	OldString json.RawMessage `json:"old_string"`
	NewString json.RawMessage `json:"new_string"`
	Edits     json.RawMessage `json:"edits"`
}

func decodeArgs(raw []byte) args {
	var a args
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return args{}
	}
	return a
}

// asString returns v as a string, and whether it is one.
func asString(v json.RawMessage) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// argString returns v as a string, "" when it is not one.
func argString(v json.RawMessage) string {
	s, _ := asString(v)
	return s
}

// edits returns a multi-edit's entries.
func (a args) edits() []args {
	var out []args
	if len(a.Edits) == 0 || json.Unmarshal(a.Edits, &out) != nil {
		return nil
	}
	return out
}

// filePath is the file a tool argument or a context item names: a path
// as given, or the path of a file: URI ("file:///c%3A/Users/x" is
// c:\Users\x; cn writes "file://" before the path unescaped,
// extensions/cli/src/ui/hooks/useChat.helpers.ts). A URI of another
// scheme (vscode-remote:, a file on another machine) names no file here.
func filePath(s string) string {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, "file://")
	if !ok {
		switch {
		case hasScheme(s):
			return ""
		case isWindowsAbs(s):
			return windowsPath(s)
		}
		return s
	}
	if isWindowsAbs(rest) {
		return windowsPath(rest)
	}
	if !strings.HasPrefix(rest, "/") {
		return "" // file://host/…, a share
	}
	if u, err := url.PathUnescape(rest); err == nil {
		rest = u
	}
	if len(rest) >= 3 && rest[0] == '/' && isLetter(rest[1]) && rest[2] == ':' {
		return windowsPath(rest[1:])
	}
	return rest
}

// windowsPath writes a Windows absolute path with backslashes and its
// drive letter upper-case: VS Code's URIs lower-case it (file:///c%3A/…),
// the paths a model or cn gives keep it upper-case, and a file is made
// relative to its project only when the two agree.
func windowsPath(p string) string {
	return strings.ToUpper(p[:1]) + strings.ReplaceAll(p[1:], "/", `\`)
}

// projectPath is the project a session's workspaceDirectory names: the
// extensions write the first workspace folder's URI, cn the directory it
// ran in (process.cwd()). A folder on another machine, or no folder, is
// none.
func projectPath(ws string) string {
	p := filePath(ws)
	if strings.HasPrefix(p, "/") || isWindowsAbs(p) {
		return p
	}
	return ""
}

// hasScheme reports a URI's scheme and "://" at the start of s.
func hasScheme(s string) bool {
	i := strings.Index(s, "://")
	if i < 1 || !isLetter(s[0]) {
		return false
	}
	for _, c := range []byte(s[:i]) {
		if !isLetter(c) && !('0' <= c && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// isWindowsAbs reports a Windows absolute path (C:\…, C:/…) on any
// system.
func isWindowsAbs(p string) bool {
	return len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
