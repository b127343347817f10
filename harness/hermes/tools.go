package hermes

import (
	"encoding/json"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// toolCall is one entry of an assistant row's tool_calls, an OpenAI
// chat-completions call: {id, type: "function", function: {name,
// arguments}}, arguments a JSON object written as a string.
type toolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// toolArgs are the arguments of the tools that become records
// (tools/file_tools.py, tools/terminal_tool.py): terminal's command;
// read_file's and write_file's path, write_file's content; patch's mode,
// path, old_string and new_string (mode "replace", the default) or its
// V4A patch (mode "patch").
type toolArgs struct {
	Command   string `json:"command"`
	Path      string `json:"path"`
	Content   string `json:"content"`
	Mode      string `json:"mode"`
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
	Patch     string `json:"patch"`
}

// toolCalls decodes a row's tool_calls; what is not a JSON array of
// calls yields none.
func toolCalls(raw string) []toolCall {
	if raw == "" {
		return nil
	}
	var calls []toolCall
	if json.Unmarshal([]byte(raw), &calls) != nil {
		return nil
	}
	return calls
}

// args decodes a call's arguments, a JSON string holding an object (or,
// from some providers, the object itself).
func (c toolCall) args() toolArgs {
	var a toolArgs
	raw := c.Function.Arguments
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = []byte(s)
	}
	_ = json.Unmarshal(raw, &a)
	return a
}

// callRecords returns the records one tool call yields: terminal a
// command, write_file and patch the files they edit (with the text
// replaced and written), read_file the file it reads. Other tools
// (web_search, memory, cronjob, search_files…) touch no file of the
// project.
func callRecords(c toolCall, project string) []harness.Record {
	switch c.Function.Name {
	case "terminal":
		if cmd := strings.TrimSpace(c.args().Command); cmd != "" {
			return []harness.Record{{Kind: harness.CommandRecord, Value: cmd}}
		}
	case "read_file":
		if p := harness.RelPath(project, c.args().Path); p != "" {
			return []harness.Record{{Kind: harness.FileRecord, Value: p, Action: harness.Read}}
		}
	case "write_file":
		a := c.args()
		if p := harness.RelPath(project, a.Path); p != "" {
			r := harness.Record{Kind: harness.FileRecord, Value: p, Action: harness.Edited}
			r.Span.New, r.Span.Clipped = harness.ClipSpan(a.Content)
			r.Span.Whole = true
			return []harness.Record{r}
		}
	case "patch":
		a := c.args()
		if a.Mode == "patch" {
			var out []harness.Record
			for _, f := range patchFiles(a.Patch) {
				if p := harness.RelPath(project, f); p != "" {
					out = append(out, harness.Record{Kind: harness.FileRecord, Value: p, Action: harness.Edited})
				}
			}
			return out
		}
		if p := harness.RelPath(project, a.Path); p != "" {
			r := harness.Record{Kind: harness.FileRecord, Value: p, Action: harness.Edited}
			var oldClipped, newClipped bool
			r.Span.Old, oldClipped = harness.ClipSpan(a.OldString)
			r.Span.New, newClipped = harness.ClipSpan(a.NewString)
			r.Span.Clipped = oldClipped || newClipped
			return []harness.Record{r}
		}
	}
	return nil
}

// patchFiles returns the files a V4A patch names in its "*** Add File: ",
// "*** Update File: ", "*** Delete File: " and "*** Move to: " headers.
func patchFiles(text string) []string {
	var out []string
	for text != "" {
		var l string
		l, text, _ = strings.Cut(text, "\n")
		l = strings.TrimRight(l, "\r")
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if rest, ok := strings.CutPrefix(l, h); ok && strings.TrimSpace(rest) != "" {
				out = append(out, strings.TrimSpace(rest))
			}
		}
	}
	return out
}

// toolResult is what a tool row's content holds of how the call ended:
// terminal's {"output", "exit_code", "error"}; the file tools'
// {"error": …} (tool_error) when refused, patch's "success".
type toolResult struct {
	Output   *string         `json:"output"`
	ExitCode *float64        `json:"exit_code"`
	Error    json.RawMessage `json:"error"`
	Success  *bool           `json:"success"`
}

// failed reports an error the result names: a string or object, not
// null, false or "".
func (t toolResult) failed() bool {
	e := strings.TrimSpace(string(t.Error))
	return e != "" && e != "null" && e != "false" && e != `""` || t.Success != nil && !*t.Success
}

// ended fills in r from the tool row that answered its call (tool, the
// call's tool): a command's exit status and output, an edit applied or
// refused (a refused edit keeps no text). A read that failed touched no
// file: its record is emptied, for distinct to drop. The result is the
// row's first JSON value: Hermes appends its own notes after it ("[Tool
// loop warning: …]" in the corpus, a mid-turn user message).
func ended(r *harness.Record, tool, content string) {
	var res toolResult
	isJSON := false
	if strings.HasPrefix(content, "{") {
		data := []byte(content)
		// Only the first value is decoded; json.Decoder would do it by
		// growing a buffer (a third of the whole read's time).
		sc := jsonscan.New(data)
		sc.Skip()
		isJSON = sc.Err() == nil && json.Unmarshal(data[:sc.Pos()], &res) == nil
	}
	switch tool {
	case "terminal":
		switch {
		case !isJSON:
			r.Outcome.Output = harness.ClipOutput(content)
		case res.ExitCode != nil && *res.ExitCode == float64(int(*res.ExitCode)):
			code := int(*res.ExitCode)
			r.Outcome.Exit, r.Outcome.Status = harness.ExitStatus(code), harness.StatusOfExit(code)
		case res.failed():
			r.Outcome.Status = harness.Failed
		}
		if isJSON && res.Output != nil {
			r.Outcome.Output = harness.ClipOutput(*res.Output)
		}
		if r.Outcome.Output == "" && isJSON && res.failed() {
			var msg string
			if json.Unmarshal(res.Error, &msg) == nil {
				r.Outcome.Output = harness.ClipOutput(msg)
			}
		}
	case "read_file":
		if isJSON && res.failed() {
			r.Value = ""
		}
	case "write_file", "patch":
		if !isJSON {
			return
		}
		if res.failed() {
			r.Outcome.Status, r.Span = harness.Failed, harness.Span{}
			return
		}
		r.Outcome.Status = harness.Succeeded
	}
}
