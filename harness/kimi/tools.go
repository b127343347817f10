package kimi

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// toolArgs holds the arguments that name a file or a command, and the
// text an edit replaced or a write wrote, in both products' tools.
type toolArgs struct {
	Path       string          `json:"path"`
	Command    string          `json:"command"`
	Content    *string         `json:"content"`
	Mode       string          `json:"mode"`
	OldString  string          `json:"old_string"`
	NewString  string          `json:"new_string"`
	Edit       json.RawMessage `json:"edit"`
	Background bool            `json:"run_in_background"`
}

// strEdit is one edit of kimi-cli's StrReplaceFile.
type strEdit struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// toolCall turns a call into its record and, for a command or an edit,
// waits for its result. The
// tools are kimi-cli's (src/kimi_cli/tools: Shell, ReadFile,
// ReadMediaFile, WriteFile, StrReplaceFile) and Kimi Code's
// (packages/agent-core/src/tools/builtin: Bash, Read, ReadMediaFile,
// Write, Edit); others leave none. Arguments are a JSON text in kimi-cli's
// calls and a JSON value in Kimi Code's.
func (p *parser) toolCall(st *state, id, name string, rawArgs json.RawMessage, n int) {
	var action harness.FileAction
	shell := false
	switch name {
	case "Shell", "Bash":
		shell = true
	case "ReadFile", "ReadMediaFile", "Read":
		action = harness.Read
	case "WriteFile", "Write", "StrReplaceFile", "Edit":
		action = harness.Edited
	default:
		return
	}
	var args toolArgs
	if json.Unmarshal(argsJSON(rawArgs), &args) != nil {
		return
	}
	rec := harness.Record{Turn: st.turn, Line: n}
	if shell {
		cmd := strings.TrimSpace(args.Command)
		if cmd == "" {
			return
		}
		rec.Kind, rec.Value = harness.CommandRecord, cmd
		shell = !args.Background
	} else {
		f := harness.RelPath(st.sess.Project, args.Path)
		if f == "" {
			return
		}
		rec.Kind, rec.Value, rec.Action = harness.FileRecord, f, action
		rec.Span = editSpan(name, args)
	}
	st.sess.Records = append(st.sess.Records, rec)
	// A read's result is the file, the largest kind of line, and says no
	// more than that the file was read: it is left undecoded.
	if id != "" && action != harness.Read {
		p.pending[id] = call{st: st, at: len(st.sess.Records) - 1, shell: shell}
	}
}

// argsJSON is a call's arguments as JSON: kimi-cli writes them as a
// string holding JSON.
func argsJSON(raw json.RawMessage) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return []byte(s)
	}
	return raw
}

// editSpan is what an edit call replaced and wrote: a write's whole
// content (appended text is new text, not the file), an Edit's strings,
// a StrReplaceFile's one edit (of several, none: a record holds one span).
func editSpan(name string, args toolArgs) harness.Span {
	var sp harness.Span
	var cutOld, cutNew bool
	switch name {
	case "WriteFile", "Write":
		if args.Content != nil {
			sp.New, cutNew = harness.ClipSpan(*args.Content)
			sp.Whole = args.Mode != "append"
		}
	case "Edit":
		sp.Old, cutOld = harness.ClipSpan(args.OldString)
		sp.New, cutNew = harness.ClipSpan(args.NewString)
	case "StrReplaceFile":
		var one strEdit
		var list []strEdit
		if json.Unmarshal(args.Edit, &one) != nil {
			if json.Unmarshal(args.Edit, &list) != nil || len(list) != 1 {
				return sp
			}
			one = list[0]
		}
		sp.Old, cutOld = harness.ClipSpan(one.Old)
		sp.New, cutNew = harness.ClipSpan(one.New)
	}
	sp.Clipped = cutOld || cutNew
	return sp
}

// The closing lines both products' shell tools give a command's result
// (kimi-cli tools/shell, Kimi Code tools/builtin/shell/bash.ts).
const (
	shellOK     = "Command executed successfully."
	shellFailed = "Command failed with exit code: "
)

// toolResult sets the outcome of the pending call a result ends: failed
// when the tool says it erred, else succeeded; for a command, its output
// and the exit status its closing line gives (0 for a command that
// succeeded in the foreground, which only an exit status of 0 does).
func (p *parser) toolResult(id string, isError bool, msg string, output func() string) {
	c, ok := p.pending[id]
	if !ok {
		return
	}
	delete(p.pending, id)
	o := harness.Outcome{Status: harness.Succeeded}
	if isError {
		o.Status = harness.Failed
	}
	if c.st.sess.Records[c.at].Kind == harness.CommandRecord {
		out := strings.TrimRight(output(), "\r\n")
		for _, closing := range []string{msg, lastLine(out)} {
			code, found := strings.CutPrefix(closing, shellFailed)
			if n, err := strconv.Atoi(strings.TrimSuffix(code, ".")); found && err == nil && o.Exit == nil {
				o.Exit, o.Status = harness.ExitStatus(n), harness.StatusOfExit(n)
			}
		}
		// Both shells report success only for an exit status of 0.
		if o.Exit == nil && !isError && c.shell {
			o.Exit = harness.ExitStatus(0)
		}
		if l := lastLine(out); l == shellOK || strings.HasPrefix(l, shellFailed) {
			out = strings.TrimRight(out[:len(out)-len(l)], "\r\n")
		}
		o.Output = strings.Clone(harness.ClipOutput(out))
	}
	c.st.sess.Records[c.at].Outcome = o
}

func lastLine(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }
