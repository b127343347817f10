package claude

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// SessionID names a Claude Code session: claude-<sessionId>. A subagent's
// is its parent's followed by -agent-<agentId>. The file's place is not
// part of it, so a moved transcript keeps its IDs.
func SessionID(sessionID string) string { return "claude-" + sessionID }

// fileSessionID is the session id a transcript's name gives,
// <sessionId>.jsonl, or "" for an agent file or another name.
func fileSessionID(path string) string {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if harness.IsUUID(stem) {
		return stem
	}
	return ""
}

// lastSessionID is the sessionId of the transcript's last main-chain line:
// lines a resume copied come first, the session's own lines last.
func lastSessionID(data []byte) string {
	id := ""
	for len(data) > 0 {
		i := bytes.LastIndexByte(data[:len(data)-1], '\n')
		ln := data[i+1:]
		data = data[:max(i, 0)]
		var l struct {
			SessionID   string `json:"sessionId"`
			IsSidechain bool   `json:"isSidechain"`
			Type        string `json:"type"`
		}
		if json.Unmarshal(ln, &l) == nil && l.SessionID != "" && (l.Type == "user" || l.Type == "assistant") {
			if !l.IsSidechain {
				return l.SessionID
			}
			if id == "" {
				id = l.SessionID
			}
		}
		if i < 0 {
			break
		}
	}
	return id
}

// ValidID reports a session ID of the shape Claude Code documents:
// claude-<sessionId>, the sessionId a UUID (§1.1), and for a subagent
// -agent-<agentId> or -sidechain after it (§1.6); and claude-prompt-<hash>
// for a prompt of history.jsonl (harness.PromptID).
func (Reader) ValidID(id string) bool {
	if harness.IsPromptID(Name, id) {
		return true
	}
	rest, ok := strings.CutPrefix(id, "claude-")
	if !ok || len(rest) < 36 || !harness.IsUUID(rest[:36]) {
		return false
	}
	switch tail := rest[36:]; {
	case tail == "", tail == "-sidechain":
		return true
	case strings.HasPrefix(tail, "-agent-"):
		return harness.IsToken(tail[len("-agent-"):])
	}
	return false
}
