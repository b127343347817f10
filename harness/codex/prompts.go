package codex

import (
	"bytes"
	"cmp"
	"path/filepath"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// historyName is Codex's prompt history, in $CODEX_HOME: one line per
// prompt typed, {session_id, ts (Unix seconds), text}; versions of
// mid-2025 wrote conversation_id for session_id
// (codex-rs/core/src/message_history.rs). Codex keeps it when it prunes
// rollouts.
const historyName = "history.jsonl"

// isPromptHistory reports the prompt history by its name.
func isPromptHistory(path string) bool { return filepath.Base(path) == historyName }

// historyLine is one line of history.jsonl.
type historyLine struct {
	SessionID      string `json:"session_id"`
	ConversationID string `json:"conversation_id"`
	Ts             int64  `json:"ts"`
	Text           string `json:"text"`
}

// parsePrompts reads history.jsonl: each line a prompt, linked to the
// session (the rollout's id) it names. It names no project.
func parsePrompts(data []byte, opts harness.ParseOptions) *harness.History {
	return harness.ParsePromptLines(Name, data, opts, "not a prompt-history line", func(line []byte) (harness.Prompt, bool) {
		var l historyLine
		if json.Unmarshal(line, &l) != nil || l.Text == "" {
			return harness.Prompt{}, false
		}
		p := harness.Prompt{Text: l.Text}
		if id := cmp.Or(l.SessionID, l.ConversationID); harness.IsUUID(id) {
			p.Session = SessionID(id)
		}
		if l.Ts > 0 {
			p.Time = time.Unix(l.Ts, 0)
		}
		return p, true
	})
}

// sniffPrompts accepts a history.jsonl whose first line has Codex's keys:
// a text and a session_id or conversation_id.
func sniffPrompts(head []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n"), []byte("\n"))
	held := harness.TopKeys(first, "session_id", "conversation_id", "text")
	return (held[0] || held[1]) && held[2]
}
