package dsh

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// line is the part of a log line deja reads: the header's fields, or an
// event's envelope and the data fields of the events it keeps. Everything
// else (usage, embedded streams, approvals, compaction, team and goal
// events) is skipped by the decoder unread.
type line struct {
	Type string `json:"type"`
	// The header (HeaderLine in session-persistence-jsonl src/format.ts).
	ID            string `json:"id"`
	CreatedAt     int64  `json:"createdAt"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession"`
	Origin        string `json:"origin"`
	IsSeeded      bool   `json:"isSeeded"`
	SeedLength    int64  `json:"seedLength"`
	// An event; a packed text-chunks row has seq0 and time0 for the first
	// delta it packs.
	Seq   *int64 `json:"seq"`
	Seq0  *int64 `json:"seq0"`
	Time  int64  `json:"time"`
	Time0 int64  `json:"time0"`
	Data  *data  `json:"data"`
}

// data is an event's payload.
type data struct {
	Source  *source         `json:"source"`
	Content json.RawMessage `json:"content"`
	Message *message        `json:"message"`
	Chunk   *block          `json:"chunk"`
	Texts   []string        `json:"texts"`
	// tool/call, and tool/result's error (a flag or a message).
	CallID    string          `json:"callId"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Error     json.RawMessage `json:"error"`
}

// source says who wrote a message: "user" is what a person typed.
type source struct {
	Kind   string `json:"kind"`
	CallID string `json:"callId"`
}

type message struct {
	Source  *source         `json:"source"`
	Content json.RawMessage `json:"content"`
}

// block is one content block: text, reasoning, or a tool-result around
// blocks of its own; an assistant/chunk's chunk has the same shape.
type block struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	ToolCallID string          `json:"toolCallId"`
	Content    json.RawMessage `json:"content"`
	IsError    bool            `json:"isError"`
}

// maxCwd bounds a header's cwd: a longer one is no directory.
const maxCwd = 4096

// Parse reads one session log and returns its session. It never fails:
// bad lines are skipped and counted in Warnings; an unfinished last line
// is left for the next read.
//
// A log holds one session, so the indexer reads a grown log again from
// its first decoded byte (the file is compressed: it is decoded whole
// from its start each time, see harness.FileReader) and stores only the
// turns that changed.
func Parse(data []byte, opts harness.ParseOptions) *harness.History {
	p := &parser{opts: opts, turn: -1, pending: map[string]call{}}
	p.sess.Offset = opts.Offset
	lines := harness.NewLines(data)
	end := 0
	for lines.Next() {
		if p.line(lines) {
			end = lines.End()
		}
	}
	p.flush()
	return p.finish(opts.Offset + int64(end))
}

type parser struct {
	opts harness.ParseOptions
	sess harness.Session
	turn int
	// own is the session's id as dsh writes it, from the header, else
	// from the session folder's name.
	own    string
	parent string
	headed bool
	// seeded marks a fork, whose log opens with its parent's events: the
	// first seedLength of them (v0, v1), or all before its last
	// session/end-seed marker (v2 on).
	seeded     bool
	seedLength int64
	// cut says the end-seed marker was read: what follows is the fork's.
	cut  bool
	warn harness.Warnings
	// streamed is the text of an answer being streamed, from streamLine,
	// its last delta at streamAt.
	streamed   []string
	streamAt   time.Time
	streamLine int
	// pending holds each command or file call whose tool/result has not
	// come yet (see outcome.go).
	pending map[string]call
}

// line handles one line and reports whether it was consumed (a partial
// last line that is not yet complete JSON is not).
func (p *parser) line(l *harness.Lines) bool {
	raw := bytes.TrimSpace(l.Line)
	if len(raw) == 0 {
		return true
	}
	// A tool's result is the largest kind of event (a file read, a
	// command's output): one that answers no call deja made a record of
	// is skipped undecoded (unless it is a last line still being written).
	if len(p.pending) == 0 && harness.AnyValue(raw, "type", isResult) && (!l.Partial || json.Valid(raw)) {
		return true
	}
	var r line
	// Strings share data's bytes: ParseFile detaches what is kept.
	if _, err := json.Parse(raw, &r, json.ZeroCopy); err != nil {
		if l.Partial {
			return false
		}
		p.warn.Add(json.Problem(err), l.Number)
		return true
	}
	if r.Type == "session" {
		p.header(r)
		return true
	}
	if r.Type == "" {
		p.warn.Add("without a type", l.Number)
		return true
	}
	if p.inherited(r) {
		return true
	}
	at := millis(r.Time)
	if !at.IsZero() && !p.sess.HasStart() {
		p.sess.Started = at
	}
	d := r.Data
	if d == nil {
		d = &data{}
	}
	switch r.Type {
	case "user/message":
		p.user(d, l.Number, at)
	case "assistant/message":
		p.streamed = nil // the complete message supersedes its stream
		if d.Message != nil {
			p.answer(textOf(d.Message.Content), l.Number, at)
		}
	case "assistant/chunk":
		if d.Chunk != nil && d.Chunk.Type == "text-delta" {
			p.stream([]string{d.Chunk.Text}, l.Number, at)
		}
	case "text-chunks":
		p.stream(d.Texts, l.Number, millis(r.Time0))
	case "step/end", "turn/end":
		p.flush()
	case "tool/call":
		p.flush()
		p.call(d, l.Number)
	case "tool/result":
		p.flush()
		p.result(d)
	case "session/end-seed":
		if p.seeded {
			p.forget()
		}
	}
	return true
}

func isResult(typ string) bool { return typ == "tool/result" }

// header reads the session header, the log's first line.
func (p *parser) header(r line) {
	if p.headed {
		return
	}
	p.headed = true
	p.own = r.ID
	if t := millis(r.CreatedAt); !t.IsZero() {
		p.sess.Started = t
	}
	if r.Cwd != "" && len(r.Cwd) <= maxCwd {
		p.sess.Project = filepath.Clean(r.Cwd)
	}
	p.parent = r.ParentSession
	p.sess.Subagent = r.Origin == "subagent"
	p.seeded = r.IsSeeded || r.SeedLength > 0
	p.seedLength = r.SeedLength
}

// inherited reports an event a fork copied from its parent: in a v0 or
// v1 log, one of the first seedLength events (seq counts them from 0).
// v2 logs mark the cut with a session/end-seed event instead (see forget).
func (p *parser) inherited(r line) bool {
	seq := r.Seq
	if seq == nil {
		seq = r.Seq0
	}
	return p.seedLength > 0 && seq != nil && *seq < p.seedLength
}

// forget drops what was read before a fork's end-seed marker: its
// parent's turns, which the parent's own log holds.
func (p *parser) forget() {
	p.cut = true
	p.sess.Messages, p.sess.Records = nil, nil
	p.turn = -1
	p.streamed = nil
	clear(p.pending)
}

// user adds a prompt: a user/message whose source is the user. The same
// event carries what plugins splice into the turn (the runtime context,
// the sandbox policy, the skill catalogue) under other source kinds; those
// are dsh's, not the user's.
func (p *parser) user(d *data, n int, at time.Time) {
	if d.Source == nil || d.Source.Kind != "user" {
		return
	}
	p.flush()
	text := textOf(d.Content)
	if text == "" {
		return
	}
	p.turn++
	p.sess.Messages = append(p.sess.Messages, harness.Message{Role: harness.User, Text: text, Turn: p.turn, Line: n, Time: at})
}

// answer adds an assistant message.
func (p *parser) answer(text string, n int, at time.Time) {
	if text = strings.TrimSpace(text); text != "" {
		p.sess.Messages = append(p.sess.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: p.turn, Line: n, Time: at})
	}
}

// stream holds the deltas of an answer being streamed until its complete
// assistant/message supersedes them; a step that ends without one was
// interrupted, and the deltas are then all there is of it (flush).
func (p *parser) stream(texts []string, n int, at time.Time) {
	if len(texts) == 0 {
		return
	}
	if len(p.streamed) == 0 {
		p.streamLine = n
	}
	p.streamed = append(p.streamed, texts...)
	if !at.IsZero() {
		p.streamAt = at
	}
}

// flush keeps an interrupted answer's streamed text.
func (p *parser) flush() {
	if len(p.streamed) == 0 {
		return
	}
	p.answer(strings.Join(p.streamed, ""), p.streamLine, p.streamAt)
	p.streamed, p.streamAt = nil, time.Time{}
}

// textOf joins the text blocks of a content array (or reads a plain
// string); reasoning blocks are the model thinking, not what it said.
func textOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return strings.TrimSpace(s)
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var out []string
	for _, b := range blocks {
		if b.Type != "" && b.Type != "text" {
			continue
		}
		if s := strings.TrimSpace(b.Text); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n\n")
}

// millis reads a time in milliseconds since 1970, the zero time for one
// outside 1970 to 5138.
func millis(ms int64) time.Time {
	if ms <= 0 || ms >= 1e14 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// finish closes the session at end; a log with no message and no record
// has none.
func (p *parser) finish(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path, Warnings: p.warn.List()}
	if len(p.sess.Messages) == 0 && len(p.sess.Records) == 0 {
		return h
	}
	if p.seeded && p.seedLength == 0 && !p.cut {
		// A v2 fork read before its end-seed marker (the first frame
		// torn): all of it so far is its parent's.
		return h
	}
	own := p.own
	if own != "" && !(Reader{}).ValidID(sessionID(own)) {
		// An id of another shape names no session deja can keep; the
		// session's folder names it, as for a header without one.
		p.warn.Add("the session header's id is not of dsh's shape; the session is named from its folder", 1)
		own = ""
	}
	if own == "" && p.opts.Path != "" {
		own = filepath.Base(filepath.Dir(p.opts.Path))
	}
	p.sess.ID = sessionID(own)
	if p.parent != "" && (Reader{}).ValidID(sessionID(p.parent)) {
		p.sess.Parent = sessionID(p.parent)
	} else if p.parent != "" {
		p.warn.Add("the session header's parentSession is not of dsh's shape; the session is linked to no parent", 1)
	}
	h.Warnings = p.warn.List()
	p.sess.End = end
	p.sess.Ordinal = max(p.opts.FirstOrdinal, 1)
	h.Sessions = []harness.Session{p.sess}
	return h
}

// sessionID names a dsh session: dsh-<uuid> for its session-<uuid> ids,
// else dsh- and the id as written (ValidID refuses one of another shape).
func sessionID(own string) string {
	if rest, ok := strings.CutPrefix(own, "session-"); ok && harness.IsUUID(rest) {
		own = rest
	}
	return IDPrefix + own
}
