package claude

import (
	"bytes"
	"path/filepath"
	"strings"

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
	if isUUID(stem) {
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

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
