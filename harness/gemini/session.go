package gemini

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// functionResponse starts a legacy user record that is a tool's result,
// not typed text (VeriGu/QSymb session-2025-09-12T09-36, FORMATS.md §3.2).
const functionResponse = "[Function Response: "

// session builds the session from the replayed conversation; ok is false
// when the data held neither a header nor a message.
func (p *parser) session(offset, end int64) (harness.Session, bool) {
	if p.head.SessionID == "" && len(p.conv.entries) == 0 {
		return harness.Session{}, false
	}
	s := harness.Session{
		ID:       IDPrefix + p.head.SessionID,
		Ordinal:  max(p.opts.FirstOrdinal, 1),
		Offset:   offset,
		End:      end,
		Subagent: p.head.Kind == "subagent",
	}
	if p.head.SessionID == "" {
		s.ID = IDPrefix + fallbackID(p.opts.Path)
		p.warn.add("no session header: the session is named from the file name", 1)
	}
	if parent := parentID(p.opts.Path); parent != "" {
		s.Parent = IDPrefix + parent
		s.Subagent = true
	}
	if p.opts.Project != nil {
		s.Project = p.opts.Project(p.head.ProjectHash)
	}
	if t, err := time.Parse(time.RFC3339Nano, p.head.StartTime); err == nil {
		s.Started = t
	}
	turn := -1
	seen := map[harness.Record]bool{}
	for _, e := range p.conv.entries {
		if s.Started.IsZero() && !e.time.IsZero() {
			s.Started = e.time
		}
		switch e.kind {
		case "user":
			if strings.TrimSpace(e.text) == "" || strings.HasPrefix(e.text, functionResponse) {
				continue
			}
			turn++
			s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: e.text, Turn: turn, Line: e.line, Time: e.time})
		case "gemini":
			if strings.TrimSpace(e.text) != "" {
				s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: e.text, Turn: turn, Line: e.line, Time: e.time})
			}
			for _, c := range e.calls {
				for _, r := range callRecords(c, s.Project) {
					r.Turn, r.Line = turn, e.line
					key := r
					key.Line = 0
					if !seen[key] {
						seen[key] = true
						s.Records = append(s.Records, r)
					}
				}
			}
		}
		// info, error and warning records are the CLI's notices ("Request
		// cancelled.", API errors), neither side's words.
	}
	return s, true
}

// fallbackID names a session whose header is lost by its file name's
// short id (session-<time>-<first 8 of sessionId>.jsonl), or by the name.
func fallbackID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if i := strings.LastIndexByte(name, '-'); i >= 0 && strings.HasPrefix(name, "session-") {
		name = name[i+1:]
	}
	if name == "" || name == "." || name == string(filepath.Separator) {
		return "unnamed"
	}
	return name
}

// parentID returns the parent session of a subagent chat, which the CLI
// writes to chats/<parentSessionId>/<sessionId>.jsonl; "" for a main chat.
func parentID(path string) string {
	if path == "" {
		return ""
	}
	dir := filepath.Dir(path)
	if filepath.Base(filepath.Dir(dir)) != "chats" {
		return ""
	}
	return filepath.Base(dir)
}
