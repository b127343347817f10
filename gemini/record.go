package gemini

import (
	"encoding/json"
	"strings"
)

// header is the first line of a JSONL recording, and the top of a legacy
// single-JSON file (chatRecordingService.ts, FORMATS.md §3.2–3.3).
type header struct {
	SessionID   string   `json:"sessionId"`
	ProjectHash string   `json:"projectHash"`
	StartTime   string   `json:"startTime"`
	Kind        string   `json:"kind"`
	Directories []string `json:"directories"`
}

// line is every shape a JSONL line takes, decoded at once: the header, a
// message record, a "$set" patch or a "$rewindTo" truncation. Only the
// fields deja uses are named, so a tool's output or a file's content is
// skipped by the decoder instead of kept.
type line struct {
	header
	messageRecord
	Set      *setPatch `json:"$set"`
	RewindTo *string   `json:"$rewindTo"`
}

// setPatch is a "$set" line's value. A patch that holds messages is a
// checkpoint: the conversation is rebuilt from it (loadConversationRecord).
type setPatch struct {
	Messages *[]messageRecord `json:"messages"`
}

// messageRecord is one MessageRecord: type user, gemini, info, error or
// warning (chatRecordingTypes.ts).
type messageRecord struct {
	ID        string     `json:"id"`
	Timestamp string     `json:"timestamp"`
	Type      string     `json:"type"`
	Content   content    `json:"content"`
	Display   content    `json:"displayContent"`
	ToolCalls []toolCall `json:"toolCalls"`
}

// toolCall is a ToolCallRecord inside a gemini record; its result and
// resultDisplay are not read (tool output is never message text).
type toolCall struct {
	Name   string   `json:"name"`
	Args   toolArgs `json:"args"`
	Status string   `json:"status"`
}

// toolArgs are the arguments of the tools that name files or commands.
type toolArgs struct {
	FilePath     string   `json:"file_path"`
	AbsolutePath string   `json:"absolute_path"`
	Path         string   `json:"path"`
	Paths        []string `json:"paths"`
	Command      string   `json:"command"`
}

// content is a record's content: a string, or a Part list whose text parts
// are joined (JSONL users write [{"text":…}]; the legacy file and gemini
// records a string). Other parts (inline data, function calls) carry no
// typed text and are dropped.
type content struct {
	text string
	set  bool
}

// UnmarshalJSON accepts a string, a Part list, or one Part.
func (c *content) UnmarshalJSON(b []byte) error {
	c.set = true
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		return json.Unmarshal(b, &c.text)
	case '[':
		var parts []part
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			if p.Text != "" && !p.Thought {
				texts = append(texts, p.Text)
			}
		}
		c.text = strings.Join(texts, "\n")
	case '{':
		var p part
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		if !p.Thought {
			c.text = p.Text
		}
	default:
		// null or a future scalar: no text.
		c.set = false
	}
	return nil
}

// part is one Gemini API Part; a thought part is the model's thinking.
type part struct {
	Text    string `json:"text"`
	Thought bool   `json:"thought"`
}
