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
	User      userMessage      `json:"user"`
	Assistant assistantMessage `json:"assistant"`
	Request   *struct {
		Start int64 `json:"request_start_timestamp_ms"`
		End   int64 `json:"stream_end_timestamp_ms"`
	} `json:"request_metadata"`
}

type userMessage struct {
	Content struct {
		Prompt *struct {
			Prompt string `json:"prompt"`
		} `json:"Prompt"`
		Cancelled *struct {
			Prompt  *string      `json:"prompt"`
			Results []toolResult `json:"tool_use_results"`
		} `json:"CancelledToolUses"`
		Results *struct {
			Results []toolResult `json:"tool_use_results"`
		} `json:"ToolUseResults"`
	} `json:"content"`
	Env struct {
		State *struct {
			Cwd string `json:"current_working_directory"`
		} `json:"env_state"`
	} `json:"env_context"`
	Timestamp string `json:"timestamp"`
}

type assistantMessage struct {
	Response *struct {
		Content string `json:"content"`
	} `json:"Response"`
	ToolUse *struct {
		Content string    `json:"content"`
		Uses    []toolUse `json:"tool_uses"`
	} `json:"ToolUse"`
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
	ID      string                       `json:"tool_use_id"`
	Content []map[string]json.RawMessage `json:"content"`
	Status  string                       `json:"status"`
}

// conversationID is the conversation_id of a ConversationState, "" when
// it has none of the UUID shape.
func conversationID(data []byte) string {
	var c struct {
		ID string `json:"conversation_id"`
	}
	if json.Unmarshal(data, &c) != nil || !harness.IsUUID(c.ID) {
		return ""
	}
	return c.ID
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
	results := map[string]toolResult{}
	for _, e := range c.History {
		for _, r := range resultsOf(e.User) {
			results[r.ID] = r
		}
	}
	turn := -1
	var last time.Time
	for i, e := range c.History {
		line := i + 1
		if s.Project == "" && e.User.Env.State != nil && isAbs(e.User.Env.State.Cwd) {
			s.Project = e.User.Env.State.Cwd
		}
		at, err := time.Parse(time.RFC3339Nano, e.User.Timestamp)
		if err != nil {
			at = last
		}
		if prompt := promptOf(e.User); strings.TrimSpace(prompt) != "" {
			turn++
			s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: prompt, Turn: turn, Line: line, Time: at})
		}
		answered := at
		if e.Request != nil && e.Request.End > 0 {
			answered = time.UnixMilli(e.Request.End)
		} else if e.Request != nil && e.Request.Start > 0 {
			answered = time.UnixMilli(e.Request.Start)
		}
		if !answered.IsZero() {
			last = answered
		}
		text, uses := "", []toolUse(nil)
		if a := e.Assistant.Response; a != nil {
			text = a.Content
		} else if a := e.Assistant.ToolUse; a != nil {
			text, uses = a.Content, a.Uses
		}
		if strings.TrimSpace(text) != "" {
			s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: turn, Line: line, Time: answered})
		}
		for _, u := range uses {
			for _, r := range records(u, s.Project) {
				r.Turn, r.Line = turn, line
				if res, ok := results[u.ID]; ok && u.ID != "" {
					r.Outcome = outcome(res, r.Kind)
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

// promptOf is what the user typed in an entry: a prompt, or the prompt
// sent with tool calls the user cancelled.
func promptOf(u userMessage) string {
	switch {
	case u.Content.Prompt != nil:
		return u.Content.Prompt.Prompt
	case u.Content.Cancelled != nil && u.Content.Cancelled.Prompt != nil:
		return *u.Content.Cancelled.Prompt
	}
	return ""
}

// resultsOf is the tool results an entry's user message carries.
func resultsOf(u userMessage) []toolResult {
	switch {
	case u.Content.Results != nil:
		return u.Content.Results.Results
	case u.Content.Cancelled != nil:
		return u.Content.Cancelled.Results
	}
	return nil
}

// The tools whose calls are records, by the names the Amazon Q CLI
// (crates/chat-cli/src/cli/chat/tools/mod.rs) and the Kiro CLI (its
// built-in tools reference: read, write, shell) give them.
const (
	toolRead  = "read"
	toolWrite = "write"
	toolShell = "shell"
)

var toolKinds = map[string]string{
	"fs_read": toolRead, "read": toolRead,
	"fs_write": toolWrite, "write": toolWrite,
	"execute_bash": toolShell, "execute_cmd": toolShell, "shell": toolShell,
}

// toolArgs is what deja reads of a call's args: fs_write's command,
// path and texts; fs_read's path, or its batch of operations (each with a
// path, or image_paths); execute_bash's command.
type toolArgs struct {
	Command    string `json:"command"`
	Path       string `json:"path"`
	FileText   string `json:"file_text"`
	OldStr     string `json:"old_str"`
	NewStr     string `json:"new_str"`
	Operations []struct {
		Path   string   `json:"path"`
		Images []string `json:"image_paths"`
	} `json:"operations"`
}

// records are the files a call read or wrote, or the command it ran.
func records(u toolUse, cwd string) []harness.Record {
	kind, ok := toolKinds[u.Name]
	if !ok {
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
	switch a.Command {
	case "create":
		text := a.FileText
		if text == "" {
			text = a.NewStr
		}
		sp.New, c1 = harness.ClipSpan(text)
		sp.Whole = sp.New != ""
	case "str_replace", "strReplace":
		sp.Old, c1 = harness.ClipSpan(a.OldStr)
		sp.New, c2 = harness.ClipSpan(a.NewStr)
	default:
		sp.New, c1 = harness.ClipSpan(a.NewStr)
	}
	sp.Clipped = c1 || c2
	return sp
}

// outcome is how a call ended: a command's exit status and output from
// its JSON result ({"exit_status": "0", "stdout", "stderr"}, tools/execute
// in the Amazon Q CLI), else the result's status; a text result is a
// command's output.
func outcome(r toolResult, kind harness.RecordKind) harness.Outcome {
	var o harness.Outcome
	switch r.Status {
	case "Success", "success":
		o.Status = harness.Succeeded
	case "Error", "error":
		o.Status = harness.Failed
	}
	if kind != harness.CommandRecord {
		return o
	}
	var out []string
	for _, block := range r.Content {
		if raw, ok := block["Json"]; ok {
			var j struct {
				Exit   json.RawMessage `json:"exit_status"`
				Stdout string          `json:"stdout"`
				Stderr string          `json:"stderr"`
			}
			if json.Unmarshal(raw, &j) != nil {
				continue
			}
			if code, err := strconv.Atoi(strings.Trim(string(j.Exit), `"`)); err == nil {
				o.Exit, o.Status = harness.ExitStatus(code), harness.StatusOfExit(code)
			}
			out = append(out, j.Stdout, j.Stderr)
		} else if raw, ok := block["Text"]; ok {
			var text string
			if json.Unmarshal(raw, &text) == nil {
				out = append(out, text)
			}
		}
	}
	o.Output = harness.ClipOutput(strings.TrimSpace(strings.Join(nonEmpty(out), "\n")))
	return o
}

func nonEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
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
