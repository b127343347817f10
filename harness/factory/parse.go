package factory

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// line is the part of a session line deja reads: the session_start
// header (id, title, cwd) or a message record (timestamp and an
// Anthropic-style message whose content is text, tool_use and
// tool_result blocks). Other keys (parentId, owner, version) are skipped.
type line struct {
	Type      string   `json:"type"`
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Cwd       string   `json:"cwd"`
	Timestamp string   `json:"timestamp"`
	Message   *message `json:"message"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// block is one content block of a message.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   *bool           `json:"is_error"`
}

// subagentTitle opens the title droid gives a session its Task tool ran
// for a subagent.
const subagentTitle = "# Task Tool Invocation"

// systemReminder wraps the context droid puts before a typed prompt.
const (
	reminderOpen  = "<system-reminder>"
	reminderClose = "</system-reminder>"
)

// maxCwd bounds a header's cwd: a longer one is no directory.
const maxCwd = 4096

// Parse reads one session file and returns its session. It never fails:
// bad lines are skipped and counted in Warnings. The session starts where
// data starts, so a grown file is read again from its first byte (see
// harness.FileReader).
func Parse(data []byte, opts harness.ParseOptions) *harness.History {
	p := newParser(opts, json.ZeroCopy)
	lines := harness.NewLines(data)
	end := 0
	for lines.Next() {
		if p.Line(lines) {
			end = lines.End()
		}
	}
	return p.Finish(opts.Offset + int64(end))
}

type parser struct {
	opts  harness.ParseOptions
	flags json.ParseFlags
	sess  harness.Session
	turn  int
	// own is the session's id: the file name's, else session_start's.
	own  string
	warn harness.Warnings
	// pending holds, per tool_use id, the record a tool_result ends.
	pending map[string]int
}

func newParser(opts harness.ParseOptions, flags json.ParseFlags) *parser {
	p := &parser{opts: opts, flags: flags, turn: -1, pending: map[string]int{}}
	p.sess.Offset = opts.Offset
	if stem := strings.TrimSuffix(filepath.Base(opts.Path), ".jsonl"); opts.Path != "" && harness.IsUUID(stem) {
		p.own = stem
	}
	return p
}

// Line handles one line and reports whether it was consumed (a partial
// last line that is not yet complete JSON is not).
func (p *parser) Line(l *harness.Lines) bool {
	raw := bytes.TrimSpace(l.Line)
	if l.Number == 1 {
		raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	}
	if len(raw) == 0 {
		return true
	}
	var r line
	if _, err := json.Parse(raw, &r, p.flags); err != nil {
		if l.Partial {
			return false
		}
		p.warn.Add(json.Problem(err), l.Number)
		return true
	}
	switch r.Type {
	case "session_start":
		if p.own == "" && harness.IsUUID(r.ID) {
			p.own = r.ID
		}
		if p.sess.Project == "" && strings.TrimSpace(r.Cwd) != "" && len(r.Cwd) <= maxCwd {
			p.sess.Project = filepath.Clean(r.Cwd)
		}
		if strings.HasPrefix(r.Title, subagentTitle) {
			p.sess.Subagent = true
		}
	case "message":
		if r.Message == nil {
			return true
		}
		t := harness.ParseTime(r.Timestamp)
		if !t.IsZero() && (p.sess.Started.IsZero() || t.Before(p.sess.Started)) {
			p.sess.Started = t
		}
		blocks := p.blocks(r.Message.Content, l.Number)
		switch r.Message.Role {
		case "user":
			p.user(blocks, l.Number, t)
		case "assistant":
			p.assistant(blocks, l.Number, t)
		}
	default:
		p.warn.Add("of unknown type "+harness.Quoted(r.Type), l.Number)
	}
	return true
}

// blocks decodes a message's content: an array of blocks, or a string,
// which is one text block.
func (p *parser) blocks(raw json.RawMessage, n int) []block {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	if _, err := json.Parse(raw, &bs, p.flags); err != nil {
		p.warn.Add("with content that is not a list of blocks", n)
		return nil
	}
	return bs
}

// user adds a typed prompt: the text blocks, less the system reminders
// droid puts before them. A user message of tool results alone is the
// tools' answer, not a prompt; its results end their calls' records.
func (p *parser) user(blocks []block, n int, t time.Time) {
	var text []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if s := stripReminders(b.Text); s != "" {
				text = append(text, s)
			}
		case "tool_result":
			p.result(b)
		}
	}
	if len(text) == 0 {
		return
	}
	p.turn++
	p.sess.Messages = append(p.sess.Messages, harness.Message{Role: harness.User, Text: strings.Join(text, "\n"), Turn: p.turn, Line: n, Time: t})
}

// stripReminders drops the <system-reminder> blocks that open a text.
func stripReminders(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, reminderOpen) {
		_, after, found := strings.Cut(s, reminderClose)
		if !found {
			return ""
		}
		s = strings.TrimSpace(after)
	}
	return s
}

// assistant adds an answer's text and the records of its tool calls;
// thinking blocks are the model's reasoning, not its answer.
func (p *parser) assistant(blocks []block, n int, t time.Time) {
	var text []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if s := strings.TrimSpace(b.Text); s != "" {
				text = append(text, s)
			}
		case "tool_use":
			at := len(p.sess.Records)
			for _, rec := range toolRecords(b.Name, b.Input, p.sess.Project) {
				rec.Turn, rec.Line = p.turn, n
				p.sess.Records = append(p.sess.Records, rec)
			}
			if b.ID != "" && len(p.sess.Records) == at+1 && p.sess.Records[at].Action != harness.Read {
				p.pending[b.ID] = at
			}
		}
	}
	if len(text) > 0 {
		p.sess.Messages = append(p.sess.Messages, harness.Message{Role: harness.Assistant, Text: strings.Join(text, "\n\n"), Turn: p.turn, Line: n, Time: t})
	}
}

// Finish closes the session at end. A file with no message and no record
// (a session started and left) has none, nor has one whose id neither its
// name nor its header gives.
func (p *parser) Finish(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path, Warnings: p.warn.List()}
	if p.own == "" || len(p.sess.Messages) == 0 && len(p.sess.Records) == 0 {
		return h
	}
	s := p.sess
	s.ID = IDPrefix + p.own
	s.Ordinal = max(p.opts.FirstOrdinal, 1)
	s.End = end
	h.Sessions = []harness.Session{s}
	return h
}
