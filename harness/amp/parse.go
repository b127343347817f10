package amp

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// message is what deja reads of one thread message; usage, state and the
// tools' definitions are skipped.
type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
	Meta    struct {
		SentAt float64 `json:"sentAt"`
	} `json:"meta"`
}

// block is one content block: text and thinking carry text, tool_use a
// call (id, name, input), tool_result a call's run.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"toolUseID"`
	Run       *run            `json:"run"`
}

// run is how a tool call went: status done, error, cancelled,
// rejected-by-user or in-progress, with the tool's result or error.
type run struct {
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// env is the thread's starting environment; the first tree is the
// project.
type env struct {
	Initial struct {
		Trees []struct {
			URI string `json:"uri"`
		} `json:"trees"`
	} `json:"initial"`
}

// Parse reads one thread file and returns its one session, named
// amp-<thread id> (the file's id, else its name). The file is one JSON
// object rewritten whole, so it is always read whole: opts.Offset only
// shifts the session's span. It never panics: a message of the wrong
// shape is skipped and counted, and a file that breaks off keeps the
// messages before the break.
func Parse(data []byte, opts harness.ParseOptions) *harness.History {
	h := &harness.History{Path: opts.Path}
	trim := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	if len(trim) == 0 {
		return h
	}
	p := &parser{data: data, base: len(data) - len(trim), h: h, turn: -1, pending: map[string]int{}}
	if trim[0] != '{' {
		p.warn("a file that is not a JSON object")
	} else {
		p.read(trim)
	}
	p.finish(opts)
	return h
}

type parser struct {
	data    []byte
	base    int
	h       *harness.History
	sess    harness.Session
	id      string
	created float64
	turn    int
	// pending are the records of tool calls whose answer a later
	// tool_result may hold, by the call's id.
	pending map[string]int
	skipped map[string]int
	// lines counts line breaks in data before lineAt.
	lines, lineAt int
}

func (p *parser) warn(what string) {
	if p.skipped == nil {
		p.skipped = map[string]int{}
	}
	p.skipped[what]++
}

// line returns the 1-based line of the first non-space byte at or after
// offset off of the trimmed data, past a separating comma.
func (p *parser) line(off int) int {
	off = min(max(off+p.base, 0), len(p.data))
	for off < len(p.data) && strings.IndexByte(" \t\r\n,", p.data[off]) >= 0 {
		off++
	}
	if off < p.lineAt {
		p.lines, p.lineAt = 0, 0
	}
	p.lines += bytes.Count(p.data[p.lineAt:off], []byte{'\n'})
	p.lineAt = off
	return p.lines + 1
}

// read walks the thread object's top level: id, created, env and the
// messages array, in whatever order they come.
func (p *parser) read(trim []byte) {
	dec := json.NewDecoder(bytes.NewReader(trim))
	if _, err := dec.Token(); err != nil {
		p.warn("a file that is not a JSON object")
		return
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			p.warn("a thread that breaks off")
			return
		}
		switch key {
		case "id":
			var id string
			if !p.value(dec, &id) {
				return
			}
			p.id = id
		case "created":
			if !p.value(dec, &p.created) {
				return
			}
		case "env":
			var e env
			if !p.value(dec, &e) {
				return
			}
			if len(e.Initial.Trees) > 0 {
				p.sess.Project = projectPath(e.Initial.Trees[0].URI)
			}
		case "messages":
			if !p.messages(dec) {
				return
			}
		default:
			var skip json.RawMessage
			if !p.value(dec, &skip) {
				return
			}
		}
	}
}

// value decodes the next value into v. A value of another type is
// skipped with a warning; a break in the JSON ends the read.
func (p *parser) value(dec *json.Decoder, v any) bool {
	err := dec.Decode(v)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return true
	case errors.As(err, &typeErr):
		p.warn("a field of another type")
		return true
	}
	p.warn("a thread that breaks off")
	return false
}

// messages reads the messages array, one message at a time.
func (p *parser) messages(dec *json.Decoder) bool {
	tok, err := dec.Token()
	if err != nil {
		p.warn("a thread that breaks off")
		return false
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		// A scalar is read whole; an object's rest would be taken for
		// the thread's keys, so the read ends there.
		p.warn("messages that are not an array")
		return !ok
	}
	for dec.More() {
		line := p.line(int(dec.InputOffset()))
		var m message
		err := dec.Decode(&m)
		var typeErr *json.UnmarshalTypeError
		switch {
		case err == nil:
		case errors.As(err, &typeErr):
			p.warn("a message of another shape")
			continue
		default:
			p.warn("a thread that breaks off")
			return false
		}
		p.message(&m, line)
	}
	_, err = dec.Token()
	return err == nil
}

// message adds one message: a user's typed text is a prompt and starts a
// turn, its tool_result blocks answer earlier calls; an assistant's text
// is its answer (thinking is not), its tool_use blocks are records. Other
// roles (info: compaction summaries) are not conversation.
func (p *parser) message(m *message, line int) {
	var t time.Time
	if m.Meta.SentAt > 0 {
		t = msTime(m.Meta.SentAt)
	}
	var texts []string
	for i := range m.Content {
		b := &m.Content[i]
		switch b.Type {
		case "text":
			if s := strings.TrimSpace(b.Text); s != "" {
				texts = append(texts, s)
			}
		case "tool_use":
			if m.Role == "assistant" {
				p.call(b, line)
			}
		case "tool_result":
			if i, ok := p.pending[b.ToolUseID]; ok && b.Run != nil {
				p.answer(&p.sess.Records[i], b.Run)
			}
		}
	}
	if len(texts) == 0 {
		return
	}
	var role harness.Role
	switch m.Role {
	case "user":
		role = harness.User
		p.turn++
	case "assistant":
		role = harness.Assistant
	default:
		return
	}
	p.sess.Messages = append(p.sess.Messages, harness.Message{Role: role, Text: strings.Join(texts, "\n\n"), Turn: p.turn, Line: line, Time: t})
}

// msTime is an epoch-milliseconds time, in UTC.
func msTime(ms float64) time.Time { return time.UnixMilli(int64(ms)).UTC() }

// finish names the session and hands it over, with the skipped messages
// as warnings. A thread with neither a thread id nor a thread file name
// is no session: its ID could not be stable.
func (p *parser) finish(opts harness.ParseOptions) {
	tid := p.id
	if !validThreadID(tid) {
		tid = strings.TrimSuffix(filepath.Base(opts.Path), ".json")
	}
	if !validThreadID(tid) {
		if len(p.sess.Messages) > 0 || len(p.sess.Records) > 0 {
			p.warn("a thread without a thread id")
		}
	} else if len(p.sess.Messages) > 0 || len(p.sess.Records) > 0 {
		s := p.sess
		s.ID = IDPrefix + tid
		s.Ordinal = max(opts.FirstOrdinal, 1)
		s.Offset, s.End = opts.Offset, opts.Offset+int64(len(p.data))
		switch {
		case p.created > 0:
			s.Started = msTime(p.created)
		case len(s.Messages) > 0:
			s.Started = s.Messages[0].Time
		}
		p.h.Sessions = append(p.h.Sessions, s)
	}
	var out []string
	for what, n := range p.skipped {
		out = append(out, harness.SkippedLine(n, what))
	}
	sort.Strings(out)
	p.h.Warnings = append(p.h.Warnings, out...)
}
