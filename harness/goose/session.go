package goose

import (
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// IDPrefix starts every Goose session's ID: goose-<Goose's session id>,
// which is the store's sessions.id ("20251202_1") or a legacy file's name
// without .jsonl ("20250310_151010", or the name given to goose session
// --name). Goose imports a legacy file into the store under that same
// name (session/legacy.rs load_session), so both name one session alike.
const IDPrefix = "goose-"

// sessionInfo is what deja keeps of a session row or a legacy file's
// metadata line.
type sessionInfo struct {
	ID      string
	Dir     string // working_dir
	Created time.Time
	// Type is session_type: user, scheduled, sub_agent, hidden, acp …
	Type   string
	Marker string
}

// The developer extension's tools whose calls become records (goose-mcp
// developer/): shell runs a command; text_editor views, writes and
// str_replaces a file (releases to 1.2x); file_write and file_edit are
// its successors. Tool names are the extension's name, "__", the tool's.
const (
	shellTool  = "developer__shell"
	editorTool = "developer__text_editor"
	writeTool  = "developer__file_write"
	editTool   = "developer__file_edit"
)

// buildSession turns a session and its messages, in order, into the
// neutral shape; lines[i] is where messages[i] is (its line in a legacy
// file, its position in the store).
func buildSession(info sessionInfo, msgs []message, lines []int) harness.Session {
	s := harness.Session{
		ID:       IDPrefix + info.ID,
		Project:  info.Dir,
		Started:  info.Created,
		Marker:   info.Marker,
		Subagent: info.Type == "sub_agent",
	}
	turn := -1
	// pending are the records made by calls whose responses are yet to
	// come, by call id.
	pending := map[string][]int{}
	for i, m := range msgs {
		line := lines[i]
		var when time.Time
		if m.Created > 0 {
			when = unixTime(m.Created)
			if s.Started.IsZero() {
				s.Started = when
			}
		}
		text := ""
		if !m.Hidden {
			text = strings.TrimSpace(strings.Join(m.Texts, "\n"))
		}
		switch m.Role {
		case "user":
			if text != "" {
				turn++
				s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: text, Turn: turn, Line: line, Time: when})
			}
		case "assistant":
			if text != "" {
				s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: turn, Line: line, Time: when})
			}
		default:
			continue
		}
		for _, c := range m.Calls {
			r, ok := record(c, s.Project)
			if !ok {
				continue
			}
			r.Turn, r.Line = turn, line
			pending[c.ID] = append(pending[c.ID], len(s.Records))
			s.Records = append(s.Records, r)
		}
		for _, res := range m.Results {
			for _, at := range pending[res.ID] {
				s.Records[at].Outcome = outcome(s.Records[at].Kind, res)
			}
			delete(pending, res.ID)
		}
	}
	return s
}

// record is the record a developer tool call makes, with the span of an
// edit; ok is false for any other call.
func record(c call, project string) (harness.Record, bool) {
	switch c.Name {
	case shellTool:
		cmd := strings.TrimSpace(c.Command)
		return harness.Record{Kind: harness.CommandRecord, Value: cmd}, cmd != ""
	case editorTool, writeTool, editTool:
	default:
		return harness.Record{}, false
	}
	p := harness.RelPath(project, c.Path)
	if p == "" || p == "." {
		return harness.Record{}, false
	}
	r := harness.Record{Kind: harness.FileRecord, Value: p, Action: harness.Edited}
	switch {
	case c.Name == editorTool && c.Command == "view":
		r.Action = harness.Read
	case c.Name == editorTool && c.Command != "write" && c.Command != "str_replace" && c.Command != "insert" && c.Command != "undo_edit":
		return harness.Record{}, false
	case c.HasWhole && (c.Name == writeTool || c.Command == "write"):
		s, cut := harness.ClipSpan(jsonscan.Unescape(c.Whole))
		r.Span = harness.Span{New: s, Whole: true, Clipped: cut}
	case c.HasOld || c.HasNew:
		o, cutOld := harness.ClipSpan(jsonscan.Unescape(c.Old))
		n, cutNew := harness.ClipSpan(jsonscan.Unescape(c.New))
		r.Span = harness.Span{Old: o, New: n, Clipped: cutOld || cutNew}
	}
	return r, true
}

// unixTime reads a message's created, epoch seconds (Utc::now().timestamp()
// in message.rs); a value too large for seconds is taken as milliseconds.
func unixTime(n int64) time.Time {
	if n > 1e12 {
		return time.UnixMilli(n).UTC()
	}
	return time.Unix(n, 0).UTC()
}

// storeTimeLayouts are the forms a store's created_at takes: SQLite's
// CURRENT_TIMESTAMP ("2025-12-02 16:58:55", UTC), and the RFC 3339 text
// sqlx writes for a chrono DateTime<Utc> (legacy imports).
var storeTimeLayouts = []string{"2006-01-02 15:04:05", "2006-01-02 15:04:05.999999999", time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999"}

// parseStoreTime reads a created_at, zero when it is none of the forms.
func parseStoreTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, l := range storeTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
