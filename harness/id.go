package harness

import (
	"context"
	"fmt"

	"github.com/deja-dev/deja/quote"
)

// A session's ID is printed to terminals, handed to agents and pasted into
// shells, and most harnesses take it from the transcript itself (Claude
// Code's sessionId, a Codex rollout's id, Gemini CLI's header, OpenCode's
// session row). Each Reader therefore declares the shape its harness
// documents (Reader.ValidID), built from the checks below, and ParseFile
// and ReadStore drop a session of another shape with a warning: an ID
// that holds a line break or an escape sequence never enters the store.

// maxID bounds a session ID's length; the longest a reader makes (a
// Claude Code subagent's) is under 120 bytes.
const maxID = 200

// IsUUID reports an RFC 4122 UUID as text: 36 characters, hex digits in
// groups of 8-4-4-4-12.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

// IsHex reports n hex digits.
func IsHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// IsToken reports 1 to 64 ASCII letters, digits, '_' and '-': the alphabet
// of the parts of IDs a harness makes up itself (a Claude Code agentId, an
// OpenCode id after its ses_ prefix).
func IsToken(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(isAlnum(c) || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// SafeID reports a session ID in the alphabet every reader's shape keeps
// to: ASCII letters, digits, '-', '_' and '.', at most 200 bytes, starting
// with a letter. It is the check for an ID that arrives without its
// harness's reader (a team member's turn).
func SafeID(id string) bool {
	if id == "" || len(id) > maxID || !isAlnum(id[0]) || '0' <= id[0] && id[0] <= '9' {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(isAlnum(c) || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// CheckIDs drops from h every session whose ID is not of r's shape, saying
// so in Refused, and clears a parent link of another shape with a
// warning; both show the ID inert. ParseFile and ReadStore call it; a caller that reads a history any other
// way calls it too.
func CheckIDs(r Reader, h *History) {
	if h == nil {
		return
	}
	kept := h.Sessions[:0]
	for _, s := range h.Sessions {
		if !SafeID(s.ID) || !r.ValidID(s.ID) {
			h.Refused = append(h.Refused, fmt.Sprintf("session %s skipped: its ID is not of the shape %s gives its sessions", shown(s.ID), r.Name()))
			continue
		}
		if s.Parent != "" && (!SafeID(s.Parent) || !r.ValidID(s.Parent)) {
			h.Warnings = append(h.Warnings, fmt.Sprintf("session %s: its parent %s is not of the shape %s gives its sessions; kept without the link", s.ID, shown(s.Parent), r.Name()))
			s.Parent = ""
		}
		kept = append(kept, s)
	}
	clear(h.Sessions[len(kept):])
	h.Sessions = kept
}

// shown is an ID as a warning quotes it: inert, on one line, and cut at
// 80 bytes or at its first byte outside SafeID's alphabet, whichever
// comes first. What follows such a byte is no ID but text (a command
// line, a pasted token), which no warning repeats.
func shown(id string) string {
	const most = 80
	cut := min(len(id), most)
	for i := 0; i < cut; i++ {
		if c := id[i]; !(isAlnum(c) || c == '_' || c == '-' || c == '.') {
			cut = i
			break
		}
	}
	if cut < len(id) {
		id = id[:cut] + "…"
	}
	return fmt.Sprintf("%q", quote.Line(id))
}

// ParseFile parses data with fr, drops the sessions whose IDs are not of
// its shape (CheckIDs) and detaches what it returns from data (Detach).
// The indexer and 'deja parse' read every file history through it.
func ParseFile(fr FileReader, data []byte, opts ParseOptions) *History {
	h := fr.Parse(data, opts)
	CheckIDs(fr, h)
	Detach(h, data)
	return h
}

// ReadStore is ParseFile for a WholeReader.
func ReadStore(ctx context.Context, wr WholeReader, path string, opts ParseOptions) (*History, error) {
	h, err := wr.Read(ctx, path, opts)
	CheckIDs(wr, h)
	return h, err
}
