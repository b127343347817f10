package grok

import (
	"bytes"
	"math"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// The envelope's methods (session/storage/mod.rs): an ACP session update,
// or one of xAI's own.
const (
	methodACP = "session/update"
	methodXAI = "_x.ai/session/update"
)

// line is one line of updates.jsonl: the envelope {timestamp, method,
// params}, or, in a file written before it, the notification alone.
type line struct {
	Timestamp float64       `json:"timestamp"`
	Method    string        `json:"method"`
	Params    *notification `json:"params"`
	notification
}

// notification is an ACP SessionNotification, or xAI's of the same shape.
type notification struct {
	SessionID string    `json:"sessionId"`
	Update    *update   `json:"update"`
	Meta      *noteMeta `json:"_meta"`
}

// noteMeta is what Grok stamps on every notification it keeps
// (build_notification_meta): "<sessionId>-<counter>" and the time in ms.
type noteMeta struct {
	EventID string  `json:"eventId"`
	Millis  float64 `json:"agentTimestampMs"`
}

// update is one session update, tagged by Kind: a message chunk (Content
// one block), or a tool call or its update (ACP's ToolCall and
// ToolCallUpdate fields); of xAI's own, turn_completed and rewind_marker
// end an answer.
type update struct {
	Kind       string          `json:"sessionUpdate"`
	Content    json.RawMessage `json:"content"`
	Meta       *chunkMeta      `json:"_meta"`
	ToolCallID string          `json:"toolCallId"`
	ToolKind   string          `json:"kind"`
	Status     string          `json:"status"`
	RawInput   json.RawMessage `json:"rawInput"`
	RawOutput  json.RawMessage `json:"rawOutput"`
	Locations  []location      `json:"locations"`
}

// chunkMeta marks a user chunk: the prompt it belongs to, a chunk the
// host wrote (a slash command's echo), one the user never saw (a
// background task's wake-up, a goal nudge).
type chunkMeta struct {
	PromptIndex *float64 `json:"promptIndex"`
	HostTurn    bool     `json:"hostTurn"`
	Hidden      bool     `json:"hideFromScrollback"`
}

type location struct {
	Path string `json:"path"`
}

// block is an ACP content block; only text is read.
type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Parse reads one updates.jsonl and returns its session. It never fails:
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
	warn  harness.Warnings
	sess  harness.Session
	// own is the session's UUID: its folder's, else its lines'.
	own  string
	turn int
	// The prompt being read: its chunks, where it began, and the
	// promptIndex that ties them (nil for none).
	inPrompt bool
	prompt   []string
	index    *float64
	at       int
	atTime   time.Time
	// The answer being read.
	answer     []string
	answerAt   int
	answerTime time.Time
	calls      map[string]*call
	begun      bool
}

func newParser(opts harness.ParseOptions, flags json.ParseFlags) *parser {
	p := &parser{opts: opts, flags: flags, turn: -1, calls: map[string]*call{}}
	p.sess.Offset = opts.Offset
	p.place(opts.Path)
	return p
}

// Line handles one line and reports whether it was consumed (a partial
// last line that is not yet complete JSON is not).
func (p *parser) Line(l *harness.Lines) bool {
	raw := bytes.TrimSpace(l.Line)
	if !p.begun {
		p.begun = true
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
	n := &r.notification
	if r.Params != nil {
		n = r.Params
	}
	if n.Update == nil {
		p.warn.Add("without a session update", l.Number)
		return true
	}
	if p.own == "" && harness.IsUUID(n.SessionID) {
		p.own = strings.Clone(n.SessionID)
	}
	if p.copied(n.Meta) {
		return true
	}
	t := lineTime(r.Timestamp, n.Meta)
	if p.sess.Started.IsZero() && !t.IsZero() {
		p.sess.Started = t
	}
	p.apply(n.Update, r.Method == methodXAI, l.Number, t)
	return true
}

// copied reports a line a fork copied from the session it forked: Grok
// rewrites the copy's sessionId but keeps its eventId, which names the
// session that wrote it (storage/jsonl/copy.rs). Those turns are that
// session's, read in its own file.
func (p *parser) copied(m *noteMeta) bool {
	if m == nil || p.own == "" || len(m.EventID) < 38 || m.EventID[36] != '-' {
		return false
	}
	writer := m.EventID[:36]
	return harness.IsUUID(writer) && !strings.EqualFold(writer, p.own)
}

// lineTime is when a line was written: the notification's agentTimestampMs,
// else the envelope's timestamp (epoch seconds).
func lineTime(seconds float64, m *noteMeta) time.Time {
	if m != nil && m.Millis > 0 && m.Millis < 1e14 {
		return time.UnixMilli(int64(m.Millis)).UTC()
	}
	if seconds > 0 && seconds < 1e11 && !math.IsNaN(seconds) {
		return time.Unix(int64(seconds), 0).UTC()
	}
	return time.Time{}
}

// apply reads one update. A prompt is the run of user chunks that share
// a promptIndex; an answer is the run of agent chunks until a tool call,
// a call's end, a prompt or the turn's end. Thoughts, plans and xAI's
// housekeeping leave both alone.
func (p *parser) apply(u *update, xai bool, n int, t time.Time) {
	if xai || u.Kind != "user_message_chunk" {
		p.endPrompt()
	}
	if xai {
		if u.Kind == "turn_completed" || u.Kind == "rewind_marker" {
			p.endAnswer()
		}
		return
	}
	switch u.Kind {
	case "user_message_chunk":
		if u.Meta != nil && (u.Meta.HostTurn || u.Meta.Hidden) {
			p.endPrompt()
			p.endAnswer()
			return
		}
		var index *float64
		if u.Meta != nil {
			index = u.Meta.PromptIndex
		}
		if !p.inPrompt || !sameIndex(index, p.index) {
			p.endPrompt()
			p.endAnswer()
			p.inPrompt, p.index, p.at, p.atTime = true, index, n, t
		}
		if s := p.text(u.Content); s != "" {
			p.prompt = append(p.prompt, s)
		}
	case "agent_message_chunk":
		if u.Meta != nil && u.Meta.HostTurn {
			return
		}
		if s := p.text(u.Content); s != "" {
			if len(p.answer) == 0 {
				p.answerAt, p.answerTime = n, t
			}
			p.answer = append(p.answer, s)
		}
	case "tool_call", "tool_call_update":
		p.tool(u, n)
	}
}

func sameIndex(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// text is a chunk's text: its content block when that is text.
func (p *parser) text(raw json.RawMessage) string {
	var b block
	if len(raw) == 0 || raw[0] != '{' {
		return ""
	}
	if _, err := json.Parse(raw, &b, p.flags); err != nil || b.Type != "text" {
		return ""
	}
	return b.Text
}

// endPrompt ends the prompt being read: its chunks, joined, are a user
// message that opens a turn. A message the user typed while the agent
// worked arrives wrapped in Grok's <user_query> envelope, which is left
// out.
func (p *parser) endPrompt() {
	if !p.inPrompt {
		return
	}
	p.inPrompt = false
	text := strings.Join(p.prompt, "")
	p.prompt = p.prompt[:0]
	if inner, ok := userQuery(text); ok {
		text = inner
	}
	if text = strings.TrimSpace(text); text == "" {
		return
	}
	p.turn++
	p.addMessage(harness.User, text, p.at, p.atTime)
}

// userQuery is the text of a message Grok wrapped as a mid-turn
// interjection (xai-interjection-core format.rs): a note, then the text
// between <user_query> lines, then a reminder.
func userQuery(s string) (string, bool) {
	_, rest, ok := strings.Cut(s, "<user_query>\n")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, "\n</user_query>")
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}

// endAnswer ends the answer being read: its chunks, joined, are one
// assistant message.
func (p *parser) endAnswer() {
	if len(p.answer) == 0 {
		return
	}
	text := strings.TrimSpace(strings.Join(p.answer, ""))
	p.answer = p.answer[:0]
	if text != "" {
		p.addMessage(harness.Assistant, text, p.answerAt, p.answerTime)
	}
}

func (p *parser) addMessage(role harness.Role, text string, n int, t time.Time) {
	p.sess.Messages = append(p.sess.Messages, harness.Message{Role: role, Text: text, Turn: p.turn, Line: n, Time: t})
}

// Finish closes the session at end. A file with no message and no record
// (a session started and left) holds none, nor does one whose id neither
// its place nor its lines give.
func (p *parser) Finish(end int64) *harness.History {
	p.endPrompt()
	p.endAnswer()
	h := &harness.History{Path: p.opts.Path, Warnings: p.warn.List()}
	if p.own == "" || len(p.sess.Messages) == 0 && len(p.sess.Records) == 0 {
		return h
	}
	p.sess.ID = IDPrefix + p.own
	p.sess.Ordinal = max(p.opts.FirstOrdinal, 1)
	p.sess.End = end
	h.Sessions = []harness.Session{p.sess}
	return h
}
