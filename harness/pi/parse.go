package pi

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// Options tune Parse.
type Options struct {
	// Path is the transcript's path: its name names a session whose header
	// is lost. It is never part of a session's ID.
	Path string
	// Offset is where data starts in the file; a transcript holds one
	// session, so the indexer reads it from 0.
	Offset int64
	// FirstOrdinal is the ordinal of the session; 0 means 1.
	FirstOrdinal int
	// Agent is the agent that wrote the transcript, the prefix of its ID.
	Agent Agent
	// Store is OpenClaw's sessions.json beside the transcript, nil when
	// there is none: it says which sessions subagents ran, and for whom.
	Store *Store
}

// Parse reads one transcript and returns its session. It never fails and
// never panics: lines that are not JSON, entries of unknown types and a
// last line still being written are skipped, the first two counted in
// Warnings.
func Parse(data []byte, opts Options) *harness.History {
	p := newParser(opts)
	lines := harness.NewLines(data)
	end := 0
	for lines.Next() {
		if p.Line(lines) {
			end = lines.End()
		}
	}
	return p.Finish(opts.Offset + int64(end))
}

// header is the session line that opens a transcript (SessionHeader).
type header struct {
	id, cwd, timestamp, parentSession string
	seen                              bool
}

// message is one message entry as deja keeps it: typed text, prose, or
// the tool calls and the command it holds.
type message struct {
	role  string
	text  string
	line  int
	time  time.Time
	calls []toolCall
	// command is a bashExecution's command, which the user ran with '!'.
	command string
}

type parser struct {
	opts Options
	head header
	msgs []message
	// results maps a tool call's id to whether its result was an error;
	// a call with no result did not run (its message was aborted).
	results map[string]bool
	// noHeader: the data held messages but no session header.
	noHeader bool
	warn     harness.Warnings
	scan     jsonscan.Scanner
	begun    bool
}

func newParser(opts Options) *parser {
	if opts.Agent == "" {
		opts.Agent = AgentOf(opts.Path)
	}
	return &parser{opts: opts, results: map[string]bool{}}
}

// Line reads one line; an unterminated last line that is not yet whole
// JSON is the agent still writing it, left for the next read.
func (p *parser) Line(l *harness.Lines) bool {
	raw := l.Line
	if !p.begun {
		p.begun = true
		raw = bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))
	}
	raw = bytes.TrimSpace(raw)
	if l.Partial && !json.Valid(raw) {
		return false
	}
	p.line(raw, l.Number)
	return true
}

// line applies one entry. Every entry pi writes is appended, abandoned
// branches included, so file order is the order things were said (see the
// package documentation); the entries' id and parentId are not needed to
// keep it.
func (p *parser) line(raw []byte, n int) {
	if len(raw) == 0 {
		return
	}
	e, ok := decodeEntry(&p.scan, raw)
	if !ok {
		p.warn.Add("not valid JSON", n)
		return
	}
	switch e.typ {
	case "session":
		if p.head.seen {
			p.warn.Add("a second session header", n)
			return
		}
		p.head = header{id: e.id, cwd: e.cwd, timestamp: e.timestamp, parentSession: e.parentSession, seen: true}
	case "message":
		p.message(e, n)
	case "model_change", "thinking_level_change", "compaction", "branch_summary", "custom", "custom_message",
		"label", "session_info", "title", "title_change":
		// Settings, summaries the model wrote, extensions' state and
		// messages they inject: neither side's words.
	default:
		p.warn.Add("of unknown type "+harness.Quoted(e.typ), n)
	}
}

func (p *parser) message(e entry, n int) {
	m := e.msg
	t := harness.ParseTime(e.timestamp)
	if t.IsZero() && m.ms > 0 {
		t = time.UnixMilli(m.ms)
	}
	switch m.role {
	case "user", "assistant":
		text := m.text
		if p.opts.Agent == OpenClaw {
			if m.role == "user" {
				text = stripEnvelope(text)
			} else {
				text = stripDirectives(text)
			}
		}
		p.msgs = append(p.msgs, message{role: m.role, text: text, line: n, time: t, calls: m.calls})
	case "toolResult":
		if m.toolCallID != "" {
			p.results[m.toolCallID] = m.isError
		}
	case "bashExecution":
		if cmd := strings.TrimSpace(m.command); cmd != "" {
			p.msgs = append(p.msgs, message{role: m.role, line: n, time: t, command: cmd})
		}
	case "custom", "hookMessage", "branchSummary", "compactionSummary", "developer":
		// Injected by extensions, or summaries: not typed, not prose.
	default:
		p.warn.Add("a message of unknown role "+harness.Quoted(m.role), n)
	}
}

// Finish returns the history: its session, when the data held a header or
// a message, ending at end.
func (p *parser) Finish(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	if s, ok := p.session(end); ok {
		h.Sessions = []harness.Session{s}
	}
	h.Warnings = p.warn.List()
	if p.noHeader {
		h.Warnings = append(h.Warnings, "no session header: the session is named from its file")
	}
	return h
}

func (p *parser) session(end int64) (harness.Session, bool) {
	if !p.head.seen && len(p.msgs) == 0 {
		return harness.Session{}, false
	}
	prefix := p.opts.Agent.Prefix()
	s := harness.Session{
		ID:      prefix + p.head.id,
		Ordinal: max(p.opts.FirstOrdinal, 1),
		Offset:  p.opts.Offset,
		End:     end,
		Project: p.head.cwd,
		Started: harness.ParseTime(p.head.timestamp),
	}
	if p.head.id == "" {
		s.ID = prefix + idFromName(p.opts.Path, p.opts.Agent)
		p.noHeader = true
	} else if topic := topicID(p.opts.Path, p.head.id); p.opts.Agent == OpenClaw && topic != "" {
		// OpenClaw writes a thread of a chat to <sessionId>-topic-<topic>.jsonl
		// under the session's own id: the file's name tells the two apart.
		s.ID = prefix + topic
	}
	if parent := idFromName(p.head.parentSession, p.opts.Agent); parent != "" {
		// A fork (pi's /fork, --fork) names the file it was made from.
		s.Parent = prefix + parent
	}
	if st := p.opts.Store; st != nil {
		if key, ok := st.Key(p.head.id); ok {
			if parent, ok := st.SpawnedBy(key); ok {
				s.Subagent = true
				if parent != "" {
					s.Parent = prefix + parent
				}
			}
		}
	}
	turn := -1
	seen := map[harness.Record]bool{}
	add := func(r harness.Record, line int) {
		r.Turn = turn
		if !seen[r] {
			seen[r] = true
			r.Line = line
			s.Records = append(s.Records, r)
		}
	}
	for _, m := range p.msgs {
		if s.Started.IsZero() && !m.time.IsZero() {
			s.Started = m.time
		}
		switch m.role {
		case "user":
			if strings.TrimSpace(m.text) == "" {
				continue
			}
			turn++
			s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: m.text, Turn: turn, Line: m.line, Time: m.time})
		case "assistant":
			if strings.TrimSpace(m.text) != "" {
				s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: m.text, Turn: turn, Line: m.line, Time: m.time})
			}
			for _, c := range m.calls {
				failed, ran := p.results[c.id]
				if !ran {
					continue
				}
				for _, r := range c.records(s.Project, failed) {
					add(r, m.line)
				}
			}
		case "bashExecution":
			add(harness.Record{Kind: harness.CommandRecord, Value: m.command}, m.line)
		}
	}
	return s, true
}

// idFromName is the session id a transcript's file name holds: pi and omp
// name a file <timestamp>_<id>.jsonl, OpenClaw <id>.jsonl.
func idFromName(path string, a Agent) string {
	if path == "" {
		return ""
	}
	name := filepath.Base(strings.ReplaceAll(path, `\`, "/"))
	name = strings.TrimSuffix(name, ".jsonl")
	if i := strings.LastIndexByte(name, '_'); a != OpenClaw && i >= 0 && i+1 < len(name) {
		name = name[i+1:]
	}
	if !validSessionID(name) {
		return ""
	}
	return name
}

// topicID is the name of an OpenClaw thread transcript,
// <sessionId>-topic-<topic>.jsonl, when path is one of the session id's,
// and a valid ID; "" otherwise.
func topicID(path, id string) string {
	name := strings.TrimSuffix(filepath.Base(strings.ReplaceAll(path, `\`, "/")), ".jsonl")
	if !strings.HasPrefix(name, id+"-topic-") || !validSessionID(name) {
		return ""
	}
	return name
}
