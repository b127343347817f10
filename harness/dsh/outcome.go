package dsh

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
	"github.com/deja-dev/deja/internal/lazyre"
)

// call is a record awaiting its tool/result: its index among the
// session's records.
type call struct{ at int }

// toolArgs holds the arguments that name a file or a command
// (packages/fs/tool-fs and packages/shell/tool-bash READMEs), and the
// text an edit replaced or a write wrote.
type toolArgs struct {
	FilePath  string  `json:"file_path"`
	Command   string  `json:"command"`
	OldString string  `json:"old_string"`
	NewString string  `json:"new_string"`
	Content   *string `json:"content"`
}

// call adds the record of a tool/call: bash and pwsh run a command, read
// and read_image read file_path, write and edit edit it. Other tools
// (glob, grep, the job, web and subagent tools) leave none.
func (p *parser) call(d *data, n int) {
	var action harness.FileAction
	switch d.Name {
	case "bash", "pwsh":
	case "read", "read_image":
		action = harness.Read
	case "write", "edit":
		action = harness.Edited
	default:
		return
	}
	var args toolArgs
	if !arguments(d.Arguments, &args) {
		return
	}
	rec := harness.Record{Turn: p.turn, Line: n, Kind: harness.FileRecord, Action: action}
	switch d.Name {
	case "bash", "pwsh":
		rec = harness.Record{Turn: p.turn, Line: n, Kind: harness.CommandRecord, Value: strings.TrimSpace(args.Command)}
	case "write":
		if args.Content != nil {
			rec.Span.New, rec.Span.Clipped = harness.ClipSpan(*args.Content)
			rec.Span.Whole = true
		}
	case "edit":
		var cutOld, cutNew bool
		rec.Span.Old, cutOld = harness.ClipSpan(args.OldString)
		rec.Span.New, cutNew = harness.ClipSpan(args.NewString)
		rec.Span.Clipped = cutOld || cutNew
	}
	if rec.Kind == harness.FileRecord {
		rec.Value = harness.RelPath(p.sess.Project, args.FilePath)
	}
	if rec.Value == "" {
		return
	}
	p.sess.Records = append(p.sess.Records, rec)
	if d.CallID != "" && action != harness.Read {
		p.pending[d.CallID] = call{at: len(p.sess.Records) - 1}
	}
}

// arguments decodes a call's arguments: the JSON text the model wrote, as
// dsh stores it, or an object.
func arguments(raw json.RawMessage, args *toolArgs) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false
		}
		raw = []byte(s)
	}
	return json.Unmarshal(raw, args) == nil
}

// exitMarker is the line tool-bash ends a command's result with: its
// exit status (render.ts; the UI's exit pill parses the same line).
var exitMarker = lazyre.New(`(?m)^\[exit code: (-?\d{1,9})\]\s*$`)

// result gives the outcome in a tool/result to the call it answers, named
// by the message's source.callId or its tool-result block's toolCallId.
// A command's status is its [exit code: N] marker; a timeout, a kill, a
// sandbox denial or the event's error fail it. An edit or write failed
// when the event carries an error or its text is dsh's "Error: ..." form.
func (p *parser) result(d *data) {
	if d.Message == nil {
		return
	}
	id := ""
	if d.Message.Source != nil {
		id = d.Message.Source.CallID
	}
	text, isError, blockID := resultText(d.Message.Content)
	if id == "" {
		id = blockID
	}
	c, ok := p.pending[id]
	if !ok || c.at >= len(p.sess.Records) {
		return
	}
	delete(p.pending, id)
	failed := isError || flagged(d.Error) || strings.HasPrefix(text, "Error: ")
	rec := &p.sess.Records[c.at]
	if rec.Kind == harness.FileRecord {
		rec.Outcome.Status = harness.Succeeded
		if failed {
			rec.Outcome.Status = harness.Failed
		}
		return
	}
	o := harness.Outcome{Status: harness.Succeeded, Output: text}
	if m := exitMarker.FindAllStringSubmatchIndex(text, -1); len(m) > 0 {
		last := m[len(m)-1]
		if code, err := strconv.Atoi(text[last[2]:last[3]]); err == nil {
			o.Exit = harness.ExitStatus(code)
			o.Status = harness.StatusOfExit(code)
			o.Output = text[:last[0]] + text[last[1]:]
		}
	}
	if o.Exit == nil && (failed || strings.Contains(text, "\n[timed out after ") || strings.Contains(text, "\n[killed by signal: ") || strings.Contains(text, "[sandbox: file access denied")) {
		o.Status = harness.Failed
	}
	o.Output = harness.ClipOutput(o.Output)
	rec.Outcome = o
}

// resultText reads a tool/result's content: tool-result blocks around
// the text the tool returned, or text blocks of their own.
func resultText(raw json.RawMessage) (text string, isError bool, callID string) {
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return textOf(raw), false, ""
	}
	var out []string
	for _, b := range blocks {
		switch b.Type {
		case "tool-result":
			if callID == "" {
				callID = b.ToolCallID
			}
			isError = isError || b.IsError
			if s := textOf(b.Content); s != "" {
				out = append(out, s)
			}
		case "text", "":
			if s := strings.TrimSpace(b.Text); s != "" {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, "\n"), isError, callID
}

// flagged reports an error member that says the call failed: true, or a
// message.
func flagged(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("false")) && !bytes.Equal(raw, []byte("null")) && !bytes.Equal(raw, []byte(`""`))
}
