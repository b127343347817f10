package grok

import (
	"bytes"
	"slices"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// call is a tool call being followed across its updates: Grok first
// writes it with the tool's name as its title, kind "other" and the
// model's arguments, then refines it (kind, rawInput as the parsed input
// tagged by variant, locations, a diff), then ends it with a status and
// the result (acp_session_impl/tool_calls.rs, session/acp_conversion.rs).
type call struct {
	// in is the call's input as its updates gave it, each over the last.
	in         toolInput
	kind       string
	turn, line int
	// at and n are the call's records once it has them.
	at, n int
}

// toolInput holds the arguments of Grok's tools that name a file or a
// command, and the text an edit replaced or a write wrote: read_file
// (target_file), search_replace (file_path, old_string, new_string),
// write (file_path, content), apply_patch (patch), run_terminal_cmd
// (command), and the names other tool sets give the same fields.
type toolInput struct {
	TargetFile string  `json:"target_file"`
	FilePath   string  `json:"file_path"`
	Path       string  `json:"path"`
	Command    string  `json:"command"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	Content    *string `json:"content"`
	Patch      string  `json:"patch"`
}

// toolContent is one item of a call's content: ACP's {type:"content",
// content: block}, a bare block, or {type:"diff", path, oldText, newText}.
type toolContent struct {
	Type    string  `json:"type"`
	Text    string  `json:"text"`
	Content *block  `json:"content"`
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText *string `json:"newText"`
}

// shellOutput is the part of a shell call's rawOutput deja reads (the
// tool's ToolOutput, tagged by type: "Bash" with its exit status and the
// text the model was shown, or "BackgroundTaskStarted").
type shellOutput struct {
	Type     string `json:"type"`
	ExitCode *int   `json:"exit_code"`
	Prompt   string `json:"output_for_prompt"`
}

// tool follows a tool call through one of its updates: it makes the
// call's records once its kind says what it does and its input or
// locations say on what, adds an edit's text when an update brings it,
// and sets how the call ended from the update that ends it (status
// completed or failed), after which the call is let go.
func (p *parser) tool(u *update, n int) {
	c := p.calls[u.ToolCallID]
	if c == nil {
		if u.Kind != "tool_call" || u.ToolCallID == "" {
			return
		}
		c = &call{turn: p.turn, line: n, at: -1}
		p.calls[strings.Clone(u.ToolCallID)] = c
	}
	p.endAnswer()
	if u.ToolKind != "" && u.ToolKind != "other" {
		c.kind = strings.Clone(u.ToolKind)
	}
	if len(u.RawInput) > 0 && u.RawInput[0] == '{' {
		json.Parse(u.RawInput, &c.in, p.flags)
	}
	// A read's result is the file, the largest kind of update, and says
	// no more than that the file was read: its content is decoded only
	// where it can name the file, an edit's text or a command's output.
	var items []toolContent
	if len(u.Content) > 0 && u.Content[0] == '[' && (c.at < 0 || p.sess.Records[c.at].Action != harness.Read) {
		json.Parse(u.Content, &items, p.flags)
	}
	if c.at < 0 {
		p.record(c, u.Locations, items)
	} else if r := &p.sess.Records[c.at]; c.n == 1 && r.Action == harness.Edited && !r.Span.Recorded() {
		r.Span = editSpan(&c.in, items)
	}
	if u.Status == "completed" || u.Status == "failed" {
		delete(p.calls, u.ToolCallID)
		if c.at >= 0 {
			p.ended(c, u, items)
		}
	}
}

// record makes a call's records once its ACP kind says what it does
// (read: a file read; edit, delete, move: a file edited; execute: a
// command) and on which file or command: the file its input or its
// locations name, each file a patch names, the command.
func (p *parser) record(c *call, locs []location, items []toolContent) {
	at := len(p.sess.Records)
	rec := harness.Record{Turn: c.turn, Line: c.line, Kind: harness.FileRecord, Action: harness.Edited}
	switch c.kind {
	case "execute":
		if rec.Value = strings.TrimSpace(c.in.Command); rec.Value != "" {
			rec.Kind, rec.Action = harness.CommandRecord, ""
			p.sess.Records = append(p.sess.Records, rec)
		}
	case "read", "edit", "delete", "move":
		files := patchFiles(c.in.Patch)
		if len(files) == 0 {
			files = []string{filePath(&c.in, locs, items)}
		}
		if c.kind == "read" {
			rec.Action = harness.Read
		} else if len(files) == 1 {
			rec.Span = editSpan(&c.in, items)
		}
		for _, f := range files {
			if rec.Value = harness.RelPath(p.sess.Project, f); rec.Value != "" {
				p.sess.Records = append(p.sess.Records, rec)
			}
		}
	}
	if n := len(p.sess.Records) - at; n > 0 {
		c.at, c.n = at, n
	}
}

// filePath is the file a call works on: its input's, else its first
// location's, else its diff's.
func filePath(in *toolInput, locs []location, items []toolContent) string {
	for _, f := range []string{in.FilePath, in.TargetFile, in.Path} {
		if strings.TrimSpace(f) != "" {
			return f
		}
	}
	if len(locs) > 0 && locs[0].Path != "" {
		return locs[0].Path
	}
	for _, it := range items {
		if it.Type == "diff" && it.Path != "" {
			return it.Path
		}
	}
	return ""
}

// editSpan is what an edit replaced and wrote: search_replace's strings,
// a write's whole content, else the diff Grok shows (a diff with no old
// text is a file written whole).
func editSpan(in *toolInput, items []toolContent) harness.Span {
	var sp harness.Span
	var cutOld, cutNew bool
	switch {
	case in.OldString != nil || in.NewString != nil:
		sp.Old, cutOld = harness.ClipSpan(deref(in.OldString))
		sp.New, cutNew = harness.ClipSpan(deref(in.NewString))
	case in.Content != nil:
		sp.New, cutNew = harness.ClipSpan(*in.Content)
		sp.Whole = true
	default:
		for _, it := range items {
			if it.Type != "diff" || it.NewText == nil {
				continue
			}
			sp.New, cutNew = harness.ClipSpan(*it.NewText)
			if old := deref(it.OldText); old != "" {
				sp.Old, cutOld = harness.ClipSpan(old)
			} else {
				sp.Whole = true
			}
			break
		}
	}
	sp.Clipped = cutOld || cutNew
	return sp
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// patchFiles lists the files a patch in the "*** Begin Patch" format
// adds, updates, deletes or moves to, each once.
func patchFiles(patch string) []string {
	var files []string
	for l := range strings.SplitSeq(patch, "\n") {
		op, f, ok := strings.Cut(strings.TrimSpace(l), ": ")
		switch op {
		case "*** Update File", "*** Add File", "*** Delete File", "*** Move to":
			if f = strings.TrimSpace(f); ok && f != "" && !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	return files
}

// ended sets how a call ended: its status, and for a command the exit
// status its rawOutput gives (Grok marks a command that exited non-zero
// completed, and one killed or timed out failed) and the text it printed.
// A command started in the background has no end yet.
func (p *parser) ended(c *call, u *update, items []toolContent) {
	o := harness.Outcome{Status: harness.Succeeded}
	if u.Status == "failed" {
		o.Status = harness.Failed
	}
	recs := p.sess.Records[c.at : c.at+c.n]
	if recs[0].Kind == harness.CommandRecord {
		var out shellOutput
		if raw := bytes.TrimSpace(u.RawOutput); len(raw) > 0 && raw[0] == '{' {
			json.Parse(raw, &out, p.flags)
		}
		// A command sent to the background has only started: how it ends
		// comes to the model later, as a task's output.
		if out.Type == "BackgroundTaskStarted" {
			return
		}
		if code := out.ExitCode; code != nil && (*code != 0 || o.Status == harness.Succeeded) {
			o.Exit, o.Status = harness.ExitStatus(*code), harness.StatusOfExit(*code)
		}
		text := contentText(items)
		if text == "" {
			text = out.Prompt
		}
		o.Output = harness.ClipOutput(text)
	}
	for i := range recs {
		recs[i].Outcome = o
	}
}

// contentText joins the text of a call's content items.
func contentText(items []toolContent) string {
	var text []string
	for _, it := range items {
		if it.Type == "content" && it.Content != nil {
			it.Type, it.Text = it.Content.Type, it.Content.Text
		}
		if it.Type == "text" {
			text = append(text, it.Text)
		}
	}
	return strings.Join(text, "")
}
