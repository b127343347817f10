package copilot

import (
	"path/filepath"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// historyName is Copilot CLI's prompt history, in ~/.copilot (or
// $COPILOT_HOME): {"commandHistory": [the prompts and slash commands
// typed]}, rewritten whole ([CP6], CLI 1.0.59-1.0.60). It names no
// session, project or time.
const historyName = "command-history-state.json"

// isPromptHistory reports the prompt history by its name.
func isPromptHistory(path string) bool { return filepath.Base(path) == historyName }

// parsePrompts reads command-history-state.json. The file is rewritten
// whole, so every session spans it: each run reads it whole.
func parsePrompts(data []byte, opts harness.ParseOptions) *harness.History {
	h := &harness.History{Path: opts.Path}
	var state struct {
		CommandHistory []json.RawMessage `json:"commandHistory"`
	}
	if err := json.Unmarshal(data, &state); err != nil {
		h.Warnings = append(h.Warnings, "not a command history, skipped: "+err.Error())
		return h
	}
	var prompts []harness.Prompt
	var warn harness.Warnings
	end := opts.Offset + int64(len(data))
	for i, e := range state.CommandHistory {
		var text string
		if json.Unmarshal(e, &text) != nil {
			warn.Add("not a string", i+1)
			continue
		}
		prompts = append(prompts, harness.Prompt{Text: text, Line: i + 1, Offset: opts.Offset, End: end})
	}
	h.Sessions = harness.PromptSessions(Name, prompts, opts)
	h.Warnings = warn.List()
	return h
}

// sniffPrompts accepts a command history that opens with its key.
func sniffPrompts(head []byte) bool { return harness.TopKeys(head, "commandHistory")[0] }
