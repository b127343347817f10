package kiro

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// conversation is what deja reads of the CLI's ConversationState
// (aws/amazon-q-developer-cli crates/chat-cli/src/cli/chat/conversation.rs
// and message.rs): its id and its history of entries, each a user
// message, the assistant's answer and the request's metadata. Serde
// writes the enums externally tagged: {"Prompt": {…}}.
type conversation struct {
	ID      string  `json:"conversation_id"`
	History []entry `json:"history"`
}

type entry struct {
	User struct {
		// Content holds one of Prompt, ToolUseResults and
		// CancelledToolUses.
		Content struct {
			Prompt    userContent
			Results   userContent `json:"ToolUseResults"`
			Cancelled userContent `json:"CancelledToolUses"`
		} `json:"content"`
		Timestamp string `json:"timestamp"`
	} `json:"user"`
	// Assistant holds one of Response and ToolUse.
	Assistant struct {
		Response, ToolUse assistantContent
	} `json:"assistant"`
	Request struct {
		Start int64 `json:"request_start_timestamp_ms"`
		End   int64 `json:"stream_end_timestamp_ms"`
	} `json:"request_metadata"`
}

// userContent is a user message's content: a prompt, the results of the
// assistant's tool calls, or both when the user cancelled the calls.
type userContent struct {
	Prompt  string       `json:"prompt"`
	Results []toolResult `json:"tool_use_results"`
}

// assistantContent is an answer, with the tool calls it made.
type assistantContent struct {
	Content string    `json:"content"`
	Uses    []toolUse `json:"tool_uses"`
}

// toolUse is a call the assistant made; args as the model gave them.
type toolUse struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// toolResult is how a call ended: status "Success" or "Error", content
// blocks {"Text": "…"} or {"Json": …}.
type toolResult struct {
	ID      string        `json:"tool_use_id"`
	Content []resultBlock `json:"content"`
	Status  string        `json:"status"`
}

type resultBlock struct {
	Text string          `json:"Text"`
	JSON json.RawMessage `json:"Json"`
}

// parseConversation reads one ConversationState: each prompt a user
// message starting a turn, each answer's text an assistant message, each
// tool call a record whose outcome is the result the next entry carries.
// cwd is the row's key, the folder the conversation ran in. An entry's
// Line is its 1-based place in the history.
func parseConversation(data []byte, cwd string, warnings *[]string) (harness.Session, bool) {
	var c conversation
	if err := json.Unmarshal(data, &c); err != nil {
		*warnings = append(*warnings, "a conversation is not a readable ConversationState ("+firstLine(err.Error())+"), skipped")
		return harness.Session{}, false
	}
	s := harness.Session{}
	if isAbs(cwd) {
		s.Project = cwd
	}
	turn := -1
	var last time.Time
	for i, e := range c.History {
		line := i + 1
		at, err := time.Parse(time.RFC3339Nano, e.User.Timestamp)
		if err != nil {
			at = last
		}
		// A prompt, or the prompt sent with calls the user cancelled.
		if prompt := e.User.Content.Prompt.Prompt + e.User.Content.Cancelled.Prompt; strings.TrimSpace(prompt) != "" {
			turn++
			s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: prompt, Turn: turn, Line: line, Time: at})
		}
		answered := at
		if e.Request.End > 0 {
			answered = time.UnixMilli(e.Request.End)
		} else if e.Request.Start > 0 {
			answered = time.UnixMilli(e.Request.Start)
		}
		if !answered.IsZero() {
			last = answered
		}
		text, uses := e.Assistant.Response.Content+e.Assistant.ToolUse.Content, e.Assistant.ToolUse.Uses
		if strings.TrimSpace(text) != "" {
			s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: turn, Line: line, Time: answered})
		}
		// The calls' results are in the next entry, which sends them.
		var results []toolResult
		if i+1 < len(c.History) {
			next := c.History[i+1].User.Content
			results = append(next.Results.Results, next.Cancelled.Results...)
		}
		for _, u := range uses {
			for _, r := range records(u, s.Project) {
				r.Turn, r.Line = turn, line
				for _, res := range results {
					if res.ID == u.ID && u.ID != "" {
						r.Outcome = outcome(res, r.Kind)
					}
				}
				s.Records = append(s.Records, r)
			}
		}
	}
	for _, m := range s.Messages {
		if !m.Time.IsZero() {
			s.Started = m.Time
			break
		}
	}
	return s, true
}

// The tools whose calls are records, by the names the Amazon Q CLI
// (crates/chat-cli/src/cli/chat/tools/mod.rs) and the Kiro CLI (its
// built-in tools reference: read, write, shell) give them.
const (
	toolRead  = "read"
	toolWrite = "write"
	toolShell = "shell"
)

// toolKind is the kind of tool a call's name is, "" for one that makes
// no record.
func toolKind(name string) string {
	switch name {
	case "fs_read", "read":
		return toolRead
	case "fs_write", "write":
		return toolWrite
	case "execute_bash", "execute_cmd", "shell":
		return toolShell
	}
	return ""
}

// toolArgs is what deja reads of a call's args: fs_write's command,
// path and texts; fs_read's path, or its batch of operations (each with a
// path, or image_paths); execute_bash's command.
type toolArgs struct {
	Command  string `json:"command"`
	Path     string `json:"path"`
	FileText string `json:"file_text"`
	OldStr   string `json:"old_str"`
	NewStr   string `json:"new_str"`
	// The Kiro CLI's write: content, oldStr, newStr (its session files).
	Content    string `json:"content"`
	OldStrC    string `json:"oldStr"`
	NewStrC    string `json:"newStr"`
	Operations []struct {
		Path   string   `json:"path"`
		Images []string `json:"image_paths"`
	} `json:"operations"`
}

// records are the files a call read or wrote, or the command it ran.
func records(u toolUse, cwd string) []harness.Record {
	kind := toolKind(u.Name)
	if kind == "" {
		return nil
	}
	var a toolArgs
	if json.Unmarshal(u.Args, &a) != nil {
		return nil
	}
	switch kind {
	case toolShell:
		if strings.TrimSpace(a.Command) == "" {
			return nil
		}
		return []harness.Record{{Kind: harness.CommandRecord, Value: a.Command}}
	case toolWrite:
		p := harness.RelPath(cwd, a.Path)
		if p == "" {
			return nil
		}
		return []harness.Record{{Kind: harness.FileRecord, Value: p, Action: harness.Edited, Span: span(a)}}
	}
	var out []harness.Record
	add := func(p string) {
		if p = harness.RelPath(cwd, p); p != "" {
			out = append(out, harness.Record{Kind: harness.FileRecord, Value: p, Action: harness.Read})
		}
	}
	add(a.Path)
	for _, op := range a.Operations {
		add(op.Path)
		for _, img := range op.Images {
			add(img)
		}
	}
	return out
}

// span is what an fs_write call wrote: a whole file for create, the old
// and new text for str_replace, the new text for insert and append.
func span(a toolArgs) harness.Span {
	var sp harness.Span
	var c1, c2 bool
	old, text := a.OldStr+a.OldStrC, a.NewStr+a.NewStrC
	switch a.Command {
	case "create":
		sp.New, c1 = harness.ClipSpan(first(a.FileText, a.Content, text))
		sp.Whole = sp.New != ""
	case "str_replace", "strReplace":
		sp.Old, c1 = harness.ClipSpan(old)
		sp.New, c2 = harness.ClipSpan(text)
	default:
		sp.New, c1 = harness.ClipSpan(first(text, a.Content))
	}
	sp.Clipped = c1 || c2
	return sp
}

// first is the first of texts that is not empty.
func first(texts ...string) string {
	for _, t := range texts {
		if t != "" {
			return t
		}
	}
	return ""
}

// outcome is how a call ended: a command's exit status and output from
// its JSON result ({"exit_status": "0", "stdout", "stderr"}, tools/execute
// in the Amazon Q CLI), else the result's status; a text result is a
// command's output.
func outcome(r toolResult, kind harness.RecordKind) harness.Outcome {
	var o harness.Outcome
	if strings.EqualFold(r.Status, "success") {
		o.Status = harness.Succeeded
	} else if strings.EqualFold(r.Status, "error") {
		o.Status = harness.Failed
	}
	if kind != harness.CommandRecord {
		return o
	}
	var out []string
	for _, block := range r.Content {
		var j struct {
			Exit           json.RawMessage `json:"exit_status"`
			Stdout, Stderr string
		}
		if json.Unmarshal(block.JSON, &j) == nil {
			// "0" in the Amazon Q CLI, "exit status: 0" in the Kiro CLI's
			// session files.
			if code, err := strconv.Atoi(strings.TrimPrefix(strings.Trim(string(j.Exit), `"`), "exit status: ")); err == nil {
				o.Exit, o.Status = harness.ExitStatus(code), harness.StatusOfExit(code)
			}
			block.Text += j.Stdout + "\n" + j.Stderr
		}
		out = append(out, block.Text)
	}
	o.Output = harness.ClipOutput(strings.TrimSpace(strings.Join(out, "\n")))
	return o
}

// isAbs reports an absolute path of any system: /x, C:\x or C:/x, \\host.
func isAbs(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// firstLine is an error's first line, for a warning.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}
