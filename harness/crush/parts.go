package crush

import (
	"github.com/deja-dev/deja/internal/jsonscan"
)

// A message's parts are JSON, [{type, data}] (marshalParts in
// internal/message/message.go). They are walked for the few fields deja
// uses; a tool result's content (a file viewed, a page fetched) is kept
// raw, aliasing the row, and unescaped only for a call that made a record.

// part is one part of a message, of the types deja reads.
type part struct {
	Type string
	// Text is a text part's text.
	Text string
	// A tool_call's id, tool name and input (a JSON object written as a
	// string).
	CallID, Tool, Input string
	// A tool_result's call id, content and metadata (a JSON object
	// written as a string), both raw, and whether the tool failed.
	ResultOf          string
	Content, Metadata []byte
	IsError           bool
	// A shell_command's command, output and exit code: a command the
	// user ran in bang mode (!ls).
	Command, Output string
	Exit            int64
}

// decodeParts calls each with every part of a message's parts, in order,
// and reports false when they are not a JSON array. A part of another
// type (reasoning, finish, image_url, binary) comes with its type alone.
func decodeParts(sc *jsonscan.Scanner, data []byte, each func(p part)) bool {
	sc.Reset(data)
	if sc.Kind() != '[' {
		return false
	}
	sc.Array(func() {
		var p part
		var raw []byte
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				p.Type = sc.String()
			case "data":
				// Kept raw until the type is known, which may follow it.
				sc.Kind()
				start := sc.Pos()
				sc.Skip()
				raw = data[start:sc.Pos()]
			default:
				return false
			}
			return true
		})
		if raw != nil {
			decodeData(&p, raw)
		}
		each(p)
	})
	return sc.Err() == nil
}

// decodeData reads a part's data, by the part's type.
func decodeData(p *part, raw []byte) {
	sc := jsonscan.New(raw)
	sc.Object(func(key []byte) bool {
		switch p.Type + "." + string(key) {
		case "text.text":
			p.Text = sc.String()
		case "tool_call.id":
			p.CallID = sc.String()
		case "tool_call.name":
			p.Tool = sc.String()
		case "tool_call.input":
			p.Input = sc.String()
		case "tool_result.tool_call_id":
			p.ResultOf = sc.String()
		case "tool_result.content":
			p.Content = sc.RawString()
		case "tool_result.metadata":
			p.Metadata = sc.RawString()
		case "tool_result.is_error":
			p.IsError = sc.Bool()
		case "shell_command.command":
			p.Command = sc.String()
		case "shell_command.output":
			p.Output = sc.String()
		case "shell_command.exit_code":
			p.Exit = sc.Int()
		default:
			return false
		}
		return true
	})
}

// toolInput is what deja reads of a tool call's input (the tools'
// Params structs in internal/agent/tools): the file and command, and an
// edit's text.
type toolInput struct {
	FilePath string
	Command  string
	// Old and New are an edit's old_string and new_string; Content is a
	// write's whole new file.
	Old, New, Content string
	HasEdit           bool
	// Edits are a multiedit's edits, in order, each [old, new].
	Edits [][2]string
}

// decodeInput reads a tool call's input, reporting false when it is not
// a JSON object (a call cut short while it streamed).
func decodeInput(input string) (toolInput, bool) {
	var in toolInput
	sc := jsonscan.New([]byte(input))
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "file_path":
			in.FilePath = sc.String()
		case "command":
			in.Command = sc.String()
		case "old_string":
			in.Old, in.HasEdit = sc.String(), true
		case "new_string":
			in.New, in.HasEdit = sc.String(), true
		case "content":
			in.Content = sc.String()
		case "edits":
			sc.Array(func() {
				var e [2]string
				sc.Object(func(key []byte) bool {
					switch string(key) {
					case "old_string":
						e[0] = sc.String()
					case "new_string":
						e[1] = sc.String()
					default:
						return false
					}
					return true
				})
				in.Edits = append(in.Edits, e)
			})
		default:
			return false
		}
		return true
	})
	return in, ok && sc.Err() == nil
}

// resultMeta is what deja reads of a tool result's metadata: a bash
// call's start_time (BashResponseMetadata, written once the command ran)
// and background flag, and the multiedit edits that failed
// (MultiEditResponseMetadata.edits_failed, by index).
type resultMeta struct {
	Ran, Background bool
	FailedEdits     []int
}

// decodeMeta reads a tool result's metadata, raw as the part holds it.
func decodeMeta(raw []byte) resultMeta {
	var m resultMeta
	if len(raw) == 0 {
		return m
	}
	sc := jsonscan.New([]byte(jsonscan.Unescape(raw)))
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "start_time":
			m.Ran = sc.Int() > 0
		case "background":
			m.Background = sc.Bool()
		case "edits_failed":
			sc.Array(func() {
				sc.Object(func(key []byte) bool {
					if string(key) != "index" {
						return false
					}
					m.FailedEdits = append(m.FailedEdits, int(sc.Int()))
					return true
				})
			})
		default:
			return false
		}
		return true
	})
	return m
}
