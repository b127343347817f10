package claude

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// historyName is Claude Code's prompt history, in its configuration
// directory: one line per prompt typed, {display, pastedContents,
// timestamp (ms), project (the cwd), sessionId (newer versions)}. Claude
// Code keeps it when it deletes transcripts (cleanupPeriodDays).
const historyName = "history.jsonl"

// isPromptHistory reports the prompt history by its name.
func isPromptHistory(path string) bool { return filepath.Base(path) == historyName }

// historyLine is one line of history.jsonl.
type historyLine struct {
	Display        string                   `json:"display"`
	PastedContents map[string]pastedContent `json:"pastedContents"`
	Timestamp      int64                    `json:"timestamp"`
	Project        string                   `json:"project"`
	SessionID      string                   `json:"sessionId"`
}

// pastedContent is what a "[Pasted text #N +M lines]" in display stands
// for: the text itself, or (newer versions, larger pastes) only a
// contentHash naming a file of paste-cache/, which is not read.
type pastedContent struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

// parsePrompts reads history.jsonl: each line a prompt, linked to its
// session where the line names one.
func parsePrompts(data []byte, opts harness.ParseOptions) *harness.History {
	return harness.ParsePromptLines(Name, data, opts, "not a prompt-history line", func(line []byte) (harness.Prompt, bool) {
		var l historyLine
		if json.Unmarshal(line, &l) != nil || l.Display == "" {
			return harness.Prompt{}, false
		}
		p := harness.Prompt{Text: withPastes(l.Display, l.PastedContents), Project: l.Project}
		if harness.IsUUID(l.SessionID) {
			p.Session = SessionID(l.SessionID)
		}
		if l.Timestamp > 0 {
			p.Time = time.UnixMilli(l.Timestamp)
		}
		return p, true
	})
}

// withPastes puts the pasted text the prompt carries back in place of its
// placeholders ("[Pasted text #1 +12 lines]"), as the transcript holds
// it; a paste held only by hash keeps its placeholder.
func withPastes(display string, pasted map[string]pastedContent) string {
	for n, c := range pasted {
		if c.Content == "" || c.Type != "" && c.Type != "text" {
			continue
		}
		ref := "[Pasted text #" + n
		i := strings.Index(display, ref+" ")
		if i < 0 {
			i = strings.Index(display, ref+"]")
		}
		if i < 0 {
			continue
		}
		end := i + strings.IndexByte(display[i:], ']') + 1
		display = display[:i] + c.Content + display[end:]
	}
	return display
}
