package pi

import (
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// Lines are decoded by walking their keys and keeping only what deja
// uses: a tool result's content (a file read whole, a command's output),
// thinking blocks and usage figures are passed over without being
// unescaped or allocated.

// entry is one line: the session header or an entry of the tree
// (session-manager.ts, SessionHeader and SessionEntry).
type entry struct {
	typ           string
	id            string
	timestamp     string
	cwd           string
	parentSession string
	msg           entryMessage
}

// entryMessage is a message entry's message (AgentMessage): role user,
// assistant, toolResult, bashExecution or custom.
type entryMessage struct {
	role       string
	text       string
	ms         int64
	calls      []toolCall
	toolCallID string
	isError    bool
	command    string
	// exitCode and output are a bashExecution's (BashExecutionMessage):
	// exitCode nil where the command was cancelled or the field is absent.
	exitCode *int
	output   string
}

// toolCall is an assistant's toolCall block, with the arguments that name
// a file or a command.
type toolCall struct {
	id, name string
	args     toolArgs
}

// toolArgs are a call's arguments that name a file or a command, and an
// edit's text: pi's edit writes edits[] of oldText/newText (one pair at
// the top level before 0.60), write its whole content.
type toolArgs struct {
	path, filePath, command string
	edits                   []textEdit
	content                 *string
}

type textEdit struct{ oldText, newText string }

// decodeEntry decodes one line, reporting false for one that is not a
// whole JSON object; skim passes over every message's content (Prescan's
// walk, which needs none), and a tool result's content is read only when
// want holds its call: results are most of a transcript's bytes (files
// read whole), and pi writes toolCallId before content.
func decodeEntry(sc *jsonscan.Scanner, raw []byte, skim bool, want map[harness.Key]bool) (entry, bool) {
	var e entry
	sc.Reset(raw)
	if sc.Kind() != '{' {
		return e, false
	}
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			e.typ = sc.String()
		case "id":
			e.id = sc.String()
		case "timestamp":
			e.timestamp = sc.String()
		case "cwd":
			e.cwd = sc.String()
		case "parentSession":
			e.parentSession = sc.String()
		case "message":
			if sc.Kind() != '{' {
				return false
			}
			sc.Object(func(key []byte) bool {
				if string(key) == "content" && (skim || e.msg.role == "toolResult" && e.msg.toolCallID != "" && !want[harness.KeyOf(e.msg.toolCallID)]) {
					return false
				}
				return e.msg.field(sc, key)
			})
		default:
			return false
		}
		return true
	})
	return e, ok && sc.End()
}

func (m *entryMessage) field(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "role":
		m.role = sc.String()
	case "content":
		m.text, m.calls = content(sc)
	case "timestamp":
		m.ms = sc.Int()
	case "toolCallId":
		m.toolCallID = sc.String()
	case "isError":
		m.isError = sc.Bool()
	case "command":
		m.command = sc.String()
	case "exitCode":
		if k := sc.Kind(); k == '-' || k >= '0' && k <= '9' {
			m.exitCode = harness.ExitStatus(int(sc.Int()))
			return true
		}
		return false
	case "output":
		m.output = harness.ClipOutput(sc.String())
	default:
		return false
	}
	return true
}

// content reads a message's content: a string (a user message may be
// one), or blocks whose text blocks are joined. Thinking blocks are the
// model's reasoning, not prose, and images carry no words; toolCall blocks
// are kept as calls.
func content(sc *jsonscan.Scanner) (string, []toolCall) {
	switch sc.Kind() {
	case '"':
		return sc.String(), nil
	case '[':
	default:
		sc.Skip()
		return "", nil
	}
	var texts []string
	var calls []toolCall
	sc.Array(func() {
		if sc.Kind() != '{' {
			sc.Skip()
			return
		}
		var typ, text string
		var c toolCall
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				typ = sc.String()
			case "text":
				text = sc.String()
			case "id":
				c.id = sc.String()
			case "name":
				c.name = sc.String()
			case "arguments":
				if sc.Kind() != '{' {
					return false
				}
				sc.Object(func(key []byte) bool { return c.args.field(sc, key) })
			default:
				return false
			}
			return true
		})
		switch typ {
		case "text":
			if text != "" {
				texts = append(texts, text)
			}
		case "toolCall":
			calls = append(calls, c)
		}
	})
	return strings.Join(texts, "\n"), calls
}

func (a *toolArgs) field(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "path":
		a.path = sc.String()
	case "file_path":
		a.filePath = sc.String()
	case "command":
		a.command = sc.String()
	case "oldText":
		a.oneEdit().oldText = sc.String()
	case "newText":
		a.oneEdit().newText = sc.String()
	case "edits":
		if sc.Kind() != '[' {
			return false
		}
		sc.Array(func() {
			var e textEdit
			if sc.Kind() != '{' {
				sc.Skip()
				return
			}
			sc.Object(func(key []byte) bool {
				switch string(key) {
				case "oldText":
					e.oldText = sc.String()
				case "newText":
					e.newText = sc.String()
				default:
					return false
				}
				return true
			})
			a.edits = append(a.edits, e)
		})
	case "content":
		if sc.Kind() != '"' {
			return false
		}
		c := sc.String()
		a.content = &c
	default:
		return false
	}
	return true
}

// oneEdit is the edit of the top-level oldText and newText.
func (a *toolArgs) oneEdit() *textEdit {
	if len(a.edits) == 0 {
		a.edits = append(a.edits, textEdit{})
	}
	return &a.edits[0]
}
