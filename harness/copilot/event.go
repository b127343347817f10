package copilot

import (
	"github.com/deja-dev/deja/internal/jsonscan"
)

// The events are decoded by walking their keys and keeping only the fields
// deja uses, each as the raw bytes between its quotes: a tool's result,
// the system prompt, a hook's input and transformedContent (what the model
// was sent) are skipped without being unescaped or allocated, and a text
// is unescaped only once the event's type says it is wanted, whatever the
// order of the keys.

// event is one line of events.jsonl: {type, data, id, timestamp,
// parentId} (FORMATS.md "GitHub Copilot CLI", envelope).
type event struct {
	Type      []byte
	Timestamp []byte
	// Data fields, by the event types that carry them.
	SessionID  []byte // session.start
	StartTime  []byte // session.start
	Cwd        []byte // session.start and session.resume, in context
	Content    []byte // user.message (as typed), assistant.message
	Summary    []byte // session.task_complete
	ToolCallID []byte // tool.execution_*, subagent.*
	// ParentToolCallID names the task call whose sub-agent wrote the
	// event; empty for the session's own events.
	ParentToolCallID []byte
	ToolName         []byte
	Success          bool
	HasSuccess       bool
	// Verdict is a permission.completed result's kind: "approved", or
	// "denied-…" for a call the user refused.
	Verdict []byte
	// ViewType is a completed view call's toolTelemetry.properties.viewType:
	// "file", or "directory" for a listing.
	ViewType []byte
	// Result is a completed call's result.content, what the model was
	// given: a shell command's output ending "<exited with exit code N>".
	// It is unescaped only for a command's call.
	Result []byte
	Args   toolArgs
}

// toolArgs are the arguments of the tools that name a file, a command or a
// sub-agent's prompt.
type toolArgs struct {
	Path    []byte
	Command []byte
	Prompt  []byte
	// OldStr and NewStr are an edit's replacement, FileText what a create
	// wrote; Replace says old_str or new_str was there.
	OldStr, NewStr, FileText []byte
	Replace                  bool
}

// decodeEvent decodes one line, reporting false for one that is not a
// whole JSON object.
func decodeEvent(sc *jsonscan.Scanner, raw []byte) (event, bool) {
	var e event
	sc.Reset(raw)
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			e.Type = sc.RawString()
		case "timestamp":
			e.Timestamp = sc.RawString()
		case "data":
			sc.Object(func(key []byte) bool { return e.field(sc, key) })
		default:
			return false
		}
		return true
	})
	return e, ok && sc.End()
}

// field reads the data field named key, reporting false for one deja does
// not use.
func (e *event) field(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "sessionId":
		e.SessionID = sc.RawString()
	case "startTime":
		e.StartTime = sc.RawString()
	case "context":
		sc.Object(func(key []byte) bool {
			if string(key) != "cwd" {
				return false
			}
			e.Cwd = sc.RawString()
			return true
		})
	case "content":
		e.Content = sc.RawString()
	case "summary":
		e.Summary = sc.RawString()
	case "toolCallId":
		e.ToolCallID = sc.RawString()
	case "parentToolCallId":
		e.ParentToolCallID = sc.RawString()
	case "toolName":
		e.ToolName = sc.RawString()
	case "success":
		e.HasSuccess = sc.Kind() == 't' || sc.Kind() == 'f'
		e.Success = sc.Bool()
	case "result":
		// tool.execution_complete's result (its output, kept raw) or
		// permission.completed's verdict.
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "kind":
				e.Verdict = sc.RawString()
			case "content":
				e.Result = sc.RawString()
			default:
				return false
			}
			return true
		})
	case "toolTelemetry":
		sc.Object(func(key []byte) bool {
			if string(key) != "properties" {
				return false
			}
			sc.Object(func(key []byte) bool {
				if string(key) != "viewType" {
					return false
				}
				e.ViewType = sc.RawString()
				return true
			})
			return true
		})
	case "arguments":
		sc.Object(func(key []byte) bool { return e.Args.field(sc, key) })
	default:
		return false
	}
	return true
}

func (a *toolArgs) field(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "path":
		a.Path = sc.RawString()
	case "command":
		a.Command = sc.RawString()
	case "prompt":
		a.Prompt = sc.RawString()
	case "old_str":
		a.OldStr, a.Replace = sc.RawString(), true
	case "new_str":
		a.NewStr, a.Replace = sc.RawString(), true
	case "file_text":
		a.FileText = sc.RawString()
	default:
		return false
	}
	return true
}

// text is a raw JSON string's bytes unescaped.
func text(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	return jsonscan.Unescape(raw)
}
