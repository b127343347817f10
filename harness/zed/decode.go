package zed

import (
	"encoding/json"
	"strings"
)

// A thread's document is JSON (DbThread in crates/agent/src/db.rs, with
// its version beside its fields). Version 0.3.0 lists its messages as
// Rust's externally tagged Message: {"User": {id, content}}, {"Agent":
// {content, tool_results}} or "Resume", the marker Zed sends as "Continue
// where you left off". Older documents (SerializedThread 0.2.0 and 0.1.0
// in legacy_thread.rs, and those with no version) list messages with a
// role, text segments (or one text), tool_uses and tool_results. The
// types below are what deja reads of either; a value of another type
// than they say (Zed's "Resume" among them) is left zero.
//
// encoding/json reads them in one call, and every reader already links
// it: walking the document with jsonscan read it two to three times as
// fast (125-190 against 55-110 MB/s of documents on a loaded machine)
// but cost 25 kB more of the release binary, past this reader's share;
// and a thread is read again only when Zed saved it.

// document is a thread's document.
type document struct {
	Messages []message `json:"messages"`
}

// message is one message of either generation.
type message struct {
	User  *content `json:"User"`
	Agent *content `json:"Agent"`

	Role     string `json:"role"`
	Text     string `json:"text"`
	Segments []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"segments"`
	ToolUses    []toolUse    `json:"tool_uses"`
	ToolResults []toolResult `json:"tool_results"`
	// IsHidden marks a message Zed wrote itself and did not show.
	IsHidden bool `json:"is_hidden"`
}

// content is a 0.3.0 message's: its items (a user's Text, Mention and
// Image; an agent's Text, Thinking and ToolUse) and an agent's results,
// by tool use id.
type content struct {
	Content []struct {
		Text    *string  `json:"Text"`
		ToolUse *toolUse `json:"ToolUse"`
	} `json:"content"`
	ToolResults map[string]toolResult `json:"tool_results"`
}

// toolUse is a tool call and what deja reads of its input.
type toolUse struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input struct {
		Command string `json:"command"`
		Path    string `json:"path"`
		// Destination is where move_path and copy_path write.
		Destination string `json:"destination_path"`
		// Content is a written file's whole text: write_file's and
		// streaming_edit_file's content, create_file's contents.
		Content  *string `json:"content"`
		Contents *string `json:"contents"`
		// Find and Replace are find_replace_file's.
		Find    *string `json:"find"`
		Replace string  `json:"replace"`
		// Edits are streaming_edit_file's [{old_text, new_text}], which
		// the model sometimes writes as a JSON string.
		Edits json.RawMessage `json:"edits"`
	} `json:"input"`
}

// toolResult is a LanguageModelToolResult: its content is what the model
// was told (a string, or {"Text": …}, or a list of them), its output the
// tool's own value: an edit's {input_path, old_text, new_text, diff}, or
// {error} when a streaming edit failed.
type toolResult struct {
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
	Content   any    `json:"content"`
	Output    *struct {
		NewText *string `json:"new_text"`
		Error   string  `json:"error"`
	} `json:"output"`
}

// edit is one of streaming_edit_file's edits.
type edit struct {
	Old string `json:"old_text"`
	New string `json:"new_text"`
}

// decodeDocument reads a document, reporting false when it is not JSON
// (a document cut short): a value of another type than deja reads is
// left zero and the rest read.
func decodeDocument(doc []byte) (document, bool) {
	var d document
	err := json.Unmarshal(doc, &d)
	_, typed := err.(*json.UnmarshalTypeError)
	return d, err == nil || typed
}

// edits reads streaming_edit_file's edits, a list or a JSON string of one.
func edits(raw json.RawMessage) []edit {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	var out []edit
	_ = json.Unmarshal(raw, &out)
	return out
}

// resultText is a tool result's content as text: a string, {"Text": s}
// in any case, {"type": "text", "text": s}, or a list of them (the forms
// LanguageModelToolResultContent's Deserialize takes).
func resultText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		for k, t := range v {
			if s, ok := t.(string); ok && strings.EqualFold(k, "text") {
				return s
			}
		}
	case []any:
		var texts []string
		for _, item := range v {
			texts = append(texts, resultText(item))
		}
		return strings.Join(texts, "\n")
	}
	return ""
}
