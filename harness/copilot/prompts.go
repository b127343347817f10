package copilot

import (
	"path/filepath"

	"github.com/deja-dev/deja/harness"
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
	return harness.ParsePromptList(Name, data, "commandHistory", opts)
}

// sniffPrompts accepts a command history that opens with its key.
func sniffPrompts(head []byte) bool { return harness.TopKeys(head, "commandHistory")[0] }
