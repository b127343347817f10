package cursor

import (
	"path/filepath"

	"github.com/deja-dev/deja/harness"
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

// readPrompts reads prompt_history.json: each entry a prompt string (an
// entry of another kind is counted and skipped). The file is rewritten
// whole, so every session spans it.
func readPrompts(path string, opts harness.ParseOptions) (*harness.History, error) {
	data, err := harness.ReadSide(path, maxPromptHistory)
	if err != nil {
		return nil, err
	}
	h := harness.ParsePromptList(Name, data, "", opts)
	h.Path = path
	for i := range h.Sessions {
		h.Sessions[i].Marker = promptMarker
	}
	return h, nil
}
