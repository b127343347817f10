package zed

import (
	"strings"

	"github.com/deja-dev/deja/internal/jsonscan"
)

// A thread's document is JSON (DbThread in crates/agent/src/db.rs, with
// its version beside its fields). Version 0.3.0 lists its messages as
// Rust's externally tagged Message: {"User": {id, content}}, {"Agent":
// {content, tool_results}} or "Resume", the marker Zed sends as "Continue
// where you left off". Older documents (SerializedThread 0.2.0 and 0.1.0
// in legacy_thread.rs, and those with no version) list messages with a
// role, text segments (or one text), tool_uses and tool_results. The
// document is walked once for the fields deja uses (jsonscan); a tool
// result's content and output are kept raw, aliasing the document, and
// read only for a call that made a record.

// message is what deja reads of one message of either generation.
type message struct {
	// kind is 'U' or 'A' for a 0.3.0 User or Agent message, 'u' or 'a'
	// for an older one of role user or assistant, 0 for any other.
	kind   byte
	hidden bool
	texts  []string
	// files are the paths a user message @-mentions.
	files   []string
	uses    []toolUse
	results []toolResult
}

// toolUse is a tool call: its id, the tool's name and its input, raw.
type toolUse struct {
	id, name string
	input    []byte
}

// toolResult is a LanguageModelToolResult: its content is what the model
// was told (a string, or {"Text": …}, or a list of them), its output the
// tool's own value (an edit's input_path, old_text, new_text and diff),
// both raw.
type toolResult struct {
	id              string
	isError         bool
	content, output []byte
}

// raw passes over the next value and returns its bytes.
func raw(sc *jsonscan.Scanner, data []byte) []byte {
	sc.Kind()
	start := sc.Pos()
	sc.Skip()
	if sc.Err() != nil {
		return nil
	}
	return data[start:sc.Pos()]
}

// walkDocument calls each with every message of a document, in order,
// with its 1-based position, and reports false when the document is not
// a JSON object or is cut short (the messages before the damage are
// given). A message of no shape Zed writes comes with kind 0 and ok false.
func walkDocument(data []byte, each func(m message, line int, ok bool)) bool {
	sc := jsonscan.New(data)
	if sc.Kind() != '{' {
		return false
	}
	sc.Object(func(key []byte) bool {
		if string(key) != "messages" {
			return false
		}
		line := 0
		sc.Array(func() {
			line++
			if sc.Kind() == '"' {
				// "Resume": Zed's own prompt, no one's words.
				sc.Skip()
				return
			}
			m, ok := readMessage(sc, data)
			if sc.Err() == nil {
				each(m, line, ok)
			}
		})
		return true
	})
	return sc.Err() == nil
}

// readMessage reads one message object.
func readMessage(sc *jsonscan.Scanner, data []byte) (message, bool) {
	var m message
	var role string
	shaped := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "User":
			if readUser(sc, &m) {
				m.kind = 'U'
			}
		case "Agent":
			if readAgent(sc, data, &m) {
				m.kind = 'A'
			}
		case "role":
			role = sc.String()
		case "text":
			m.texts = append(m.texts, sc.String())
		case "segments":
			sc.Array(func() {
				var typ, text string
				sc.Object(func(key []byte) bool {
					switch string(key) {
					case "type":
						typ = sc.String()
					case "text":
						text = sc.String()
					default:
						return false
					}
					return true
				})
				if typ == "text" {
					m.texts = append(m.texts, text)
				}
			})
		case "tool_uses":
			sc.Array(func() { m.uses = append(m.uses, readToolUse(sc, data)) })
		case "tool_results":
			readResults(sc, data, &m)
		case "is_hidden":
			m.hidden = sc.Bool()
		default:
			return false
		}
		return true
	})
	if m.kind == 0 {
		switch role {
		case "user":
			m.kind = 'u'
		case "assistant":
			m.kind = 'a'
		}
	}
	return m, shaped && (m.kind != 0 || role != "")
}

// readUser reads a 0.3.0 user message: its text, and the files it
// @-mentions ({"Mention": {"uri": {"File": {"abs_path": …}}, …}}).
func readUser(sc *jsonscan.Scanner, m *message) bool {
	return sc.Object(func(key []byte) bool {
		if string(key) != "content" {
			return false
		}
		sc.Array(func() {
			sc.Object(func(key []byte) bool {
				switch string(key) {
				case "Text":
					m.texts = append(m.texts, sc.String())
				case "Mention":
					sc.Object(func(key []byte) bool {
						if string(key) != "uri" {
							return false
						}
						sc.Object(func(key []byte) bool {
							if string(key) != "File" {
								return false
							}
							sc.Object(func(key []byte) bool {
								if string(key) != "abs_path" {
									return false
								}
								m.files = append(m.files, sc.String())
								return true
							})
							return true
						})
						return true
					})
				default:
					return false
				}
				return true
			})
		})
		return true
	})
}

// readAgent reads a 0.3.0 agent message: its text, tool uses and results.
func readAgent(sc *jsonscan.Scanner, data []byte, m *message) bool {
	return sc.Object(func(key []byte) bool {
		switch string(key) {
		case "content":
			sc.Array(func() {
				sc.Object(func(key []byte) bool {
					switch string(key) {
					case "Text":
						m.texts = append(m.texts, sc.String())
					case "ToolUse":
						m.uses = append(m.uses, readToolUse(sc, data))
					default:
						return false
					}
					return true
				})
			})
		case "tool_results":
			readResults(sc, data, m)
		default:
			return false
		}
		return true
	})
}

func readToolUse(sc *jsonscan.Scanner, data []byte) toolUse {
	var u toolUse
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "id":
			u.id = sc.String()
		case "name":
			u.name = sc.String()
		case "input":
			u.input = raw(sc, data)
		default:
			return false
		}
		return true
	})
	return u
}

// readResults reads tool results: an object by tool use id in 0.3.0 (an
// IndexMap), a list in older documents.
func readResults(sc *jsonscan.Scanner, data []byte, m *message) {
	one := func(id string) {
		r := toolResult{id: id}
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "tool_use_id":
				r.id = sc.String()
			case "is_error":
				r.isError = sc.Bool()
			case "content":
				r.content = raw(sc, data)
			case "output":
				r.output = raw(sc, data)
			default:
				return false
			}
			return true
		})
		m.results = append(m.results, r)
	}
	switch sc.Kind() {
	case '{':
		sc.Object(func(key []byte) bool {
			one(jsonscan.Unescape(key))
			return true
		})
	case '[':
		sc.Array(func() { one("") })
	default:
		sc.Skip()
	}
}

// toolInput is what deja reads of a tool call's input.
type toolInput struct {
	Command, Path string
	// Destination is where move_path and copy_path write.
	Destination string
	// Content is a written file's whole text: write_file's and
	// streaming_edit_file's content, create_file's contents.
	Content    string
	HasContent bool
	// Find and Replace are find_replace_file's.
	Find, Replace string
	HasFind       bool
	// Edits are streaming_edit_file's, each old_text and new_text; the
	// model sometimes writes them as a JSON string.
	Edits [][2]string
}

// decodeInput reads a tool call's input, reporting false when it is not
// a JSON object (a call cut short while it streamed).
func decodeInput(data []byte) (toolInput, bool) {
	var in toolInput
	sc := jsonscan.New(data)
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "command":
			in.Command = sc.String()
		case "path":
			in.Path = sc.String()
		case "destination_path":
			in.Destination = sc.String()
		case "content", "contents":
			in.Content, in.HasContent = sc.String(), true
		case "find":
			in.Find, in.HasFind = sc.String(), true
		case "replace":
			in.Replace = sc.String()
		case "edits":
			if sc.Kind() == '"' {
				in.Edits = decodeEdits(jsonscan.New([]byte(sc.String())))
			} else {
				in.Edits = decodeEdits(sc)
			}
		default:
			return false
		}
		return true
	})
	return in, ok && sc.Err() == nil
}

func decodeEdits(sc *jsonscan.Scanner) [][2]string {
	var out [][2]string
	sc.Array(func() {
		var e [2]string
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "old_text":
				e[0] = sc.String()
			case "new_text":
				e[1] = sc.String()
			default:
				return false
			}
			return true
		})
		out = append(out, e)
	})
	return out
}

// editOutput is what deja reads of an edit tool's output
// (EditFileToolOutput, and the Success and Error of
// StreamingEditFileToolOutput, which write_file shares): the file's whole
// new text, or the error that stopped it.
type editOutput struct {
	NewText    string
	HasNewText bool
	Error      string
}

func decodeOutput(data []byte) editOutput {
	var out editOutput
	sc := jsonscan.New(data)
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "new_text":
			out.NewText, out.HasNewText = sc.String(), true
		case "error":
			out.Error = sc.String()
		default:
			return false
		}
		return true
	})
	return out
}

// resultText is a tool result's content as text: a string, {"Text": s}
// in any case, {"type": "text", "text": s}, or a list of them (the forms
// LanguageModelToolResultContent's Deserialize takes).
func resultText(data []byte) string {
	sc := jsonscan.New(data)
	return contentText(sc)
}

func contentText(sc *jsonscan.Scanner) string {
	switch sc.Kind() {
	case '"':
		return sc.String()
	case '{':
		var text string
		sc.Object(func(key []byte) bool {
			if len(key) != 4 || !strings.EqualFold(string(key), "text") {
				return false
			}
			text = sc.String()
			return true
		})
		return text
	case '[':
		var texts []string
		sc.Array(func() { texts = append(texts, contentText(sc)) })
		return strings.Join(texts, "\n")
	}
	sc.Skip()
	return ""
}
