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
// for: the text itself, or (newer versions, larger pastes) a contentHash
// naming the file of paste-cache/, beside history.jsonl, that holds it
// (<hash>.txt, the hash hex; Claude Code prunes that directory too).
type pastedContent struct {
	Type        string `json:"type"`
	Content     string `json:"content"`
	ContentHash string `json:"contentHash"`
}

// pasteCacheDir is the directory, beside history.jsonl, of the pastes
// its lines name by hash.
const pasteCacheDir = "paste-cache"

// maxPaste bounds a paste read from paste-cache/, and maxPastes all of
// them that one parse reads: a paste past either keeps its placeholder.
const (
	maxPaste  = 1 << 20
	maxPastes = 64 << 20
)

// parsePrompts reads history.jsonl: each line a prompt, linked to its
// session where the line names one.
func parsePrompts(data []byte, opts harness.ParseOptions) *harness.History {
	budget := int64(maxPastes)
	// cached reads the paste of hash from paste-cache/, within the bounds.
	cached := func(hash string) string {
		if opts.Path == "" || len(hash) < 8 || len(hash) > 64 || !harness.IsHex(hash, len(hash)) {
			return ""
		}
		data, err := harness.ReadSide(filepath.Join(filepath.Dir(opts.Path), pasteCacheDir, hash+".txt"), min(maxPaste, budget))
		if err != nil {
			return ""
		}
		budget -= int64(len(data))
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return harness.ParsePromptLines(Name, data, opts, "not a prompt-history line", func(line []byte) (harness.Prompt, bool) {
		var l historyLine
		if json.Unmarshal(line, &l) != nil || l.Display == "" {
			return harness.Prompt{}, false
		}
		p := harness.Prompt{Text: withPastes(l.Display, l.PastedContents, cached), Project: l.Project}
		if harness.IsUUID(l.SessionID) {
			p.Session = SessionID(l.SessionID)
		}
		if l.Timestamp > 0 {
			p.Time = time.UnixMilli(l.Timestamp)
		}
		return p, true
	})
}

// withPastes puts the pasted text back in place of the placeholders
// ("[Pasted text #1 +12 lines]"), as the transcript holds it: the text the
// line carries, or the paste-cache/ file it names, read by cached; a
// paste found in neither keeps its placeholder (see harness.PromptParts).
func withPastes(display string, pasted map[string]pastedContent, cached func(hash string) string) string {
	for i := 0; i < len(display) && len(pasted) > 0; i++ {
		n, text, size := harness.PromptPlaceholder(display[i:])
		paste, ok := pasted[n]
		if size == 0 || !ok || !text || paste.Type != "" && paste.Type != "text" {
			continue
		}
		content := paste.Content
		if content == "" {
			content = cached(paste.ContentHash)
		}
		if content != "" {
			display = display[:i] + content + display[i+size:]
			size = len(content)
		}
		i += size - 1
	}
	return display
}
