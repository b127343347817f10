package gemini

import (
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// The records are decoded by walking their keys and taking only the
// fields deja uses: a tool's result, its resultDisplay (a terminal grid, a
// file's old and new content) and the thoughts are skipped without being
// unescaped or allocated, which keeps a recording of large tool outputs
// at the parse rate docs/harnesses.md reports.

// header is the first line of a JSONL recording, and the top of a legacy
// single-JSON file (chatRecordingService.ts, FORMATS.md §3.2–3.3).
type header struct {
	SessionID   string
	ProjectHash string
	StartTime   string
	Kind        string
}

// line is every shape a JSONL line takes: the header, a message record, a
// "$set" patch or a "$rewindTo" truncation.
type line struct {
	header
	messageRecord
	// Set reports a "$set" patch; Messages is set when the patch is a
	// checkpoint that rebuilds the conversation (loadConversationRecord).
	Set      bool
	Messages []messageRecord
	Rebuild  bool
	// RewindTo is the id a "$rewindTo" line names; Rewind reports one.
	RewindTo string
	Rewind   bool
}

// messageRecord is one MessageRecord: type user, gemini, info, error or
// warning (chatRecordingTypes.ts).
type messageRecord struct {
	ID        string
	Timestamp string
	Type      string
	Content   string
	Display   string
	ToolCalls []toolCall
}

// toolCall is a ToolCallRecord inside a gemini record.
type toolCall struct {
	Name   string
	Status string
	Args   toolArgs
	// output is the functionResponse's response.output, escapes left in,
	// aliasing the line: settle reads it into Outcome before the line is
	// let go.
	output  []byte
	Outcome harness.Outcome
	Span    harness.Span
}

// toolArgs are the arguments of the tools that name files or commands,
// and the text an edit replaced or a write wrote.
type toolArgs struct {
	FilePath     string
	AbsolutePath string
	Path         string
	Paths        []string
	Command      string
	OldString    string
	NewString    string
	Content      string
	HasContent   bool
}

// decodeLine decodes one JSONL line, reporting false for one that is not a
// whole JSON object; skim leaves out each message's text and tool calls
// (a Prescan's look).
func decodeLine(sc *jsonscan.Scanner, raw []byte, skim bool) (line, bool) {
	var l line
	sc.Reset(raw)
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "sessionId":
			l.SessionID = sc.String()
		case "projectHash":
			l.ProjectHash = sc.String()
		case "startTime":
			l.StartTime = sc.String()
		case "kind":
			l.Kind = sc.String()
		case "$set":
			l.Set = true
			sc.Object(func(key []byte) bool {
				if string(key) != "messages" || sc.Kind() != '[' {
					return false
				}
				l.Rebuild = true
				sc.Array(func() {
					if m, ok := decodeMessage(sc, skim); ok {
						l.Messages = append(l.Messages, m)
					}
				})
				return true
			})
		case "$rewindTo":
			l.Rewind, l.RewindTo = true, sc.String()
		default:
			return l.messageRecord.field(sc, key, skim)
		}
		return true
	})
	return l, ok && sc.End()
}

// decodeMessage decodes the message record at the scanner; see
// decodeLine for skim.
func decodeMessage(sc *jsonscan.Scanner, skim bool) (messageRecord, bool) {
	var m messageRecord
	ok := sc.Object(func(key []byte) bool { return m.field(sc, key, skim) })
	return m, ok
}

// field reads the message field named key, reporting false for a field
// deja does not use, or, skimming, for the text and tool calls.
func (m *messageRecord) field(sc *jsonscan.Scanner, key []byte, skim bool) bool {
	switch string(key) {
	case "content", "displayContent", "toolCalls":
		if skim {
			return false
		}
	}
	switch string(key) {
	case "id":
		m.ID = sc.String()
	case "timestamp":
		m.Timestamp = sc.String()
	case "type":
		m.Type = sc.String()
	case "content":
		m.Content = contentText(sc)
	case "displayContent":
		m.Display = contentText(sc)
	case "toolCalls":
		sc.Array(func() {
			var c toolCall
			if sc.Object(func(key []byte) bool { return c.field(sc, key) }) {
				c.settle()
				m.ToolCalls = append(m.ToolCalls, c)
			}
		})
	default:
		return false
	}
	return true
}

func (c *toolCall) field(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "name":
		c.Name = sc.String()
	case "status":
		c.Status = sc.String()
	case "args":
		sc.Object(func(key []byte) bool { return c.Args.field(sc, key) })
	case "result":
		// [{functionResponse: {response: {output, error}}}]: the text the
		// model was given.
		if sc.Kind() != '[' {
			return false
		}
		sc.Array(func() {
			sc.Object(func(key []byte) bool {
				if string(key) != "functionResponse" {
					return false
				}
				sc.Object(func(key []byte) bool {
					if string(key) != "response" {
						return false
					}
					sc.Object(func(key []byte) bool {
						if string(key) != "output" {
							return false
						}
						c.output = sc.RawString()
						return true
					})
					return true
				})
				return true
			})
		})
	default:
		return false
	}
	return true
}

func (a *toolArgs) field(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "file_path":
		a.FilePath = sc.String()
	case "absolute_path":
		a.AbsolutePath = sc.String()
	case "path":
		a.Path = sc.String()
	case "command":
		a.Command = sc.String()
	case "old_string":
		a.OldString = sc.String()
	case "new_string":
		a.NewString = sc.String()
	case "content":
		a.Content, a.HasContent = sc.String(), true
	case "paths":
		sc.Array(func() {
			if p := sc.String(); p != "" {
				a.Paths = append(a.Paths, p)
			}
		})
	default:
		return false
	}
	return true
}

// contentText is a record's content as text: a string, or a Part list
// whose text parts are joined (JSONL users write [{"text":…}]; the legacy
// file and gemini records a string). Thought parts are the model's
// thinking, and other parts (inline data, function calls and responses)
// carry no typed text.
func contentText(sc *jsonscan.Scanner) string {
	switch sc.Kind() {
	case '"':
		return sc.String()
	case '{':
		return partText(sc)
	case '[':
		var texts []string
		sc.Array(func() {
			if s := partText(sc); s != "" {
				texts = append(texts, s)
			}
		})
		return strings.Join(texts, "\n")
	}
	sc.Skip()
	return ""
}

func partText(sc *jsonscan.Scanner) string {
	var text string
	thought := false
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "text":
			text = sc.String()
		case "thought":
			thought = sc.Bool()
		default:
			return false
		}
		return true
	})
	if thought {
		return ""
	}
	return text
}
