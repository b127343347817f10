package goose

import (
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// message is one Goose Message (conversation/message.rs): a role, when it
// was made, its content items, and whether the user saw it.
type message struct {
	Role    string
	Created int64 // epoch seconds
	// Hidden marks a message the user never saw (metadata.userVisible
	// false): context Goose gave the model, not something typed.
	Hidden bool
	Texts  []string
	Calls  []call
	// Results are the tool responses it carries, by the id of their call.
	Results []result
	// Unknown counts content items of a type no Goose release writes.
	Unknown []string
}

// call is a toolRequest item whose toolCall succeeded: the tool's full
// name ("developer__shell") and the arguments deja reads.
type call struct {
	ID, Name string
	Command  string // shell's command, text_editor's command
	Path     string
	// Old and New are str_replace's old_str/new_str, file_edit's
	// before/after; Whole is write's file_text, file_write's content.
	Old, New, Whole []byte
	HasOld, HasNew  bool
	HasWhole        bool
}

// result is a toolResponse: whether the call failed, and the first text
// its result holds.
type result struct {
	ID     string
	Failed bool
	Text   []byte // raw, still escaped
}

// knownContent are MessageContent's types (message.rs) and the
// conversationCompacted items of releases before 1.14, which hold nothing
// deja reads.
var knownContent = map[string]bool{
	"text": true, "image": true, "toolRequest": true, "toolResponse": true,
	"toolConfirmationRequest": true, "actionRequired": true, "frontendToolRequest": true,
	"thinking": true, "redactedThinking": true, "systemNotification": true,
	"conversationCompacted": true, "summarizationRequested": true, "contextLengthExceeded": true,
}

// decodeContent reads a content array (a store row's content_json, or a
// legacy line's content) into m, reporting false when it is not an array.
func decodeContent(sc *jsonscan.Scanner, data []byte, m *message) bool {
	sc.Reset(data)
	return decodeItems(sc, m)
}

func decodeItems(sc *jsonscan.Scanner, m *message) bool {
	return sc.Array(func() {
		var kind string
		var text []byte
		var c call
		var r result
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				kind = sc.String()
			case "text":
				text = sc.RawString()
			case "id":
				c.ID = sc.String()
				r.ID = c.ID
			case "toolCall":
				decodeToolCall(sc, &c)
			case "toolResult":
				decodeToolResult(sc, &r)
			default:
				return false
			}
			return true
		})
		switch kind {
		case "text":
			if t := jsonscan.Unescape(text); strings.TrimSpace(t) != "" {
				m.Texts = append(m.Texts, t)
			}
		case "toolRequest":
			if c.Name != "" {
				m.Calls = append(m.Calls, c)
			}
		case "toolResponse":
			if r.ID != "" {
				m.Results = append(m.Results, r)
			}
		default:
			if !knownContent[kind] {
				m.Unknown = append(m.Unknown, kind)
			}
		}
	})
}

// decodeToolCall reads a toolCall, {status: "success", value: {name,
// arguments}} or {status: "error", error} (tool_result_serde.rs); a call
// that failed to parse ran nothing and keeps no name.
func decodeToolCall(sc *jsonscan.Scanner, c *call) {
	ok := true
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "status":
			ok = sc.String() == "success"
		case "value":
			sc.Object(func(key []byte) bool {
				switch string(key) {
				case "name":
					c.Name = sc.String()
				case "arguments":
					sc.Object(func(key []byte) bool { return c.argument(sc, key) })
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
	if !ok {
		c.Name = ""
	}
}

// argument reads one argument of the developer tools' calls; the texts an
// edit writes stay raw until the call is known to be an edit.
func (c *call) argument(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "command":
		if sc.Kind() != '"' {
			return false
		}
		c.Command = sc.String()
	case "path":
		c.Path = sc.String()
	case "old_str", "before":
		c.Old, c.HasOld = sc.RawString(), true
	case "new_str", "after":
		c.New, c.HasNew = sc.RawString(), true
	case "file_text", "content":
		c.Whole, c.HasWhole = sc.RawString(), true
	default:
		return false
	}
	return true
}

// decodeToolResult reads a toolResult: {status: "success", value:
// CallToolResult {content, isError}}, the same with value the content
// array alone (releases before the CallToolResult form), or {status:
// "error", error}.
func decodeToolResult(sc *jsonscan.Scanner, r *result) {
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "status":
			if sc.String() == "error" {
				r.Failed = true
			}
		case "error":
			r.Text = sc.RawString()
		case "value":
			switch sc.Kind() {
			case '[':
				contentText(sc, r)
			case '{':
				sc.Object(func(key []byte) bool {
					switch string(key) {
					case "content":
						contentText(sc, r)
					case "isError":
						if sc.Bool() {
							r.Failed = true
						}
					default:
						return false
					}
					return true
				})
			default:
				return false
			}
		default:
			return false
		}
		return true
	})
}

// contentText keeps the first text item of an MCP content array: the
// developer shell of early releases wrote its output twice, once for the
// model and once for the user.
func contentText(sc *jsonscan.Scanner, r *result) {
	sc.Array(func() {
		var kind string
		var text []byte
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				kind = sc.String()
			case "text":
				text = sc.RawString()
			default:
				return false
			}
			return true
		})
		if kind == "text" && r.Text == nil {
			r.Text = text
		}
	})
}

// decodeMetadata reads a message's metadata ({userVisible, agentVisible},
// a store row's metadata_json) into m.
func decodeMetadata(sc *jsonscan.Scanner, data []byte, m *message) {
	sc.Reset(data)
	sc.Object(func(key []byte) bool {
		if string(key) != "userVisible" {
			return false
		}
		m.Hidden = sc.Kind() == 'f'
		sc.Skip()
		return true
	})
}

// exitLine is how Goose's developer shell ends the output of a command
// that exited with another status than 0 (goose-mcp developer/shell.rs).
const exitLine = "Command exited with code "

// exitOf returns the exit status a shell result's text ends with.
func exitOf(text string) (int, bool) {
	i := strings.LastIndex(text, exitLine)
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(text[i+len(exitLine):]))
	return n, err == nil
}

// outcome is how a call ended, by its response: a shell command's exit
// status (when its output says one) and output, an edit applied or
// refused.
func outcome(kind harness.RecordKind, r result) harness.Outcome {
	var o harness.Outcome
	o.Status = harness.Succeeded
	if r.Failed {
		o.Status = harness.Failed
	}
	if kind != harness.CommandRecord {
		return o
	}
	text := jsonscan.Unescape(r.Text)
	if code, ok := exitOf(text); ok {
		o.Exit, o.Status = harness.ExitStatus(code), harness.StatusOfExit(code)
	}
	o.Output = harness.ClipOutput(text)
	return o
}
