package factory

import (
	"bytes"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// toolInput holds the arguments of droid's tools that name a file or a
// command, and the text an edit replaced or a write wrote.
type toolInput struct {
	FilePath  string  `json:"file_path"`
	Path      string  `json:"path"`
	Command   string  `json:"command"`
	OldStr    string  `json:"old_str"`
	NewStr    string  `json:"new_str"`
	OldString string  `json:"old_string"`
	NewString string  `json:"new_string"`
	Content   *string `json:"content"`
	// Input is ApplyPatch's patch text.
	Input string `json:"input"`
	Patch string `json:"patch"`
}

// toolRecords turns a tool call into records: Read a file read; Create,
// Edit and MultiEdit a file edited; ApplyPatch each file its patch names;
// Execute a command. Other tools (LS, Grep, Glob, TodoWrite, Task, web
// tools) leave none.
func toolRecords(name string, raw json.RawMessage, cwd string) []harness.Record {
	switch name {
	case "Read", "Create", "Edit", "MultiEdit", "ApplyPatch", "Execute":
	default:
		return nil
	}
	var in toolInput
	if json.Unmarshal(raw, &in) != nil {
		return nil
	}
	if name == "Execute" {
		if cmd := strings.TrimSpace(in.Command); cmd != "" {
			return []harness.Record{{Kind: harness.CommandRecord, Value: cmd}}
		}
		return nil
	}
	if name == "ApplyPatch" {
		patch := in.Input
		if patch == "" {
			patch = in.Patch
		}
		var out []harness.Record
		for _, f := range patchFiles(patch) {
			if f = harness.RelPath(cwd, f); f != "" {
				out = append(out, harness.Record{Kind: harness.FileRecord, Value: f, Action: harness.Edited})
			}
		}
		return out
	}
	file := in.FilePath
	if file == "" {
		file = in.Path
	}
	if file = harness.RelPath(cwd, file); file == "" {
		return nil
	}
	rec := harness.Record{Kind: harness.FileRecord, Value: file, Action: harness.Edited}
	switch name {
	case "Read":
		rec.Action = harness.Read
	case "Create":
		if in.Content != nil {
			rec.Span.New, rec.Span.Clipped = harness.ClipSpan(*in.Content)
			rec.Span.Whole = true
		}
	case "Edit":
		old, new := in.OldStr, in.NewStr
		if old == "" && new == "" {
			old, new = in.OldString, in.NewString
		}
		var cutOld, cutNew bool
		rec.Span.Old, cutOld = harness.ClipSpan(old)
		rec.Span.New, cutNew = harness.ClipSpan(new)
		rec.Span.Clipped = cutOld || cutNew
	}
	return []harness.Record{rec}
}

// patchFiles lists the files a patch in the "*** Begin Patch" format
// adds, updates or deletes, each once.
func patchFiles(patch string) []string {
	var files []string
	for l := range strings.SplitSeq(patch, "\n") {
		l = strings.TrimSpace(l)
		for _, op := range []string{"*** Update File:", "*** Add File:", "*** Delete File:", "*** Move to:"} {
			if f, ok := strings.CutPrefix(l, op); ok {
				if f = strings.TrimSpace(f); f != "" && !contains(files, f) {
					files = append(files, f)
				}
			}
		}
	}
	return files
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// result ends the call a tool_result answers: is_error says whether it
// failed (absent, the call's end is not known), and a command keeps the
// text the tool returned as its output.
func (p *parser) result(b block) {
	at, ok := p.pending[b.ToolUseID]
	if !ok || at >= len(p.sess.Records) {
		return
	}
	delete(p.pending, b.ToolUseID)
	rec := &p.sess.Records[at]
	if b.IsError != nil {
		rec.Outcome.Status = harness.Succeeded
		if *b.IsError {
			rec.Outcome.Status = harness.Failed
		}
	}
	if rec.Kind == harness.CommandRecord {
		rec.Outcome.Output = harness.ClipOutput(resultText(b.Content))
	}
}

// resultText is a tool_result's content: a string, or the text of its
// text blocks.
func resultText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return s
	}
	var bs []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &bs) != nil {
		return ""
	}
	var text []string
	for _, b := range bs {
		if b.Type == "text" && b.Text != "" {
			text = append(text, b.Text)
		}
	}
	return strings.Join(text, "\n")
}
