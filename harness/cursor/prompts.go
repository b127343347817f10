package cursor

import (
	"path/filepath"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// historyName is the cursor-agent CLI's prompt history, in ~/.cursor (or
// $CURSOR_CONFIG_DIR): a JSON array of the prompts typed, which the CLI
// rewrites whole. It names no session, project or time.
const historyName = "prompt_history.json"

// maxPromptHistory bounds the prompt history read: the CLI keeps a short
// list, a few kilobytes.
const maxPromptHistory = 32 << 20

// isPromptHistory reports the prompt history by its name.
func isPromptHistory(path string) bool { return filepath.Base(path) == historyName }

// promptMarker is every prompt session's Marker: its ID comes from its
// text alone, so a stored one never changes.
const promptMarker = "prompt"

// readPrompts reads prompt_history.json: each entry a prompt, a string or
// an object with a text or prompt string. The file is rewritten whole, so
// every session spans it.
func readPrompts(path string, opts harness.ParseOptions) (*harness.History, error) {
	data, err := harness.ReadSide(path, maxPromptHistory)
	if err != nil {
		return nil, err
	}
	h := &harness.History{Path: path}
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		h.Warnings = append(h.Warnings, "not a JSON array of prompts, skipped: "+err.Error())
		return h, nil
	}
	var prompts []harness.Prompt
	var warn harness.Warnings
	for i, e := range entries {
		text, ok := promptText(e)
		if !ok {
			warn.Add("not a prompt", i+1)
			continue
		}
		prompts = append(prompts, harness.Prompt{Text: text, Line: i + 1, End: int64(len(data))})
	}
	h.Sessions = harness.PromptSessions(Name, prompts, opts)
	for i := range h.Sessions {
		h.Sessions[i].Marker = promptMarker
	}
	h.Warnings = warn.List()
	return h, nil
}

// promptText is an entry's prompt: the string, or an object's text or
// prompt.
func promptText(e json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(e, &s) == nil {
		return s, true
	}
	var o struct {
		Text   string `json:"text"`
		Prompt string `json:"prompt"`
	}
	if json.Unmarshal(e, &o) != nil || o.Text == "" && o.Prompt == "" {
		return "", false
	}
	if o.Text != "" {
		return o.Text, true
	}
	return o.Prompt, true
}
