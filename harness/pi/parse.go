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
	// command is a bashExecution's command, which the user ran with '!',
	// and outcome how it ended.
	command string
	outcome harness.Outcome
}

type parser struct {
	opts  Options
	head  header
	heads int
	// msgs are the messages held until the end, when no Prescan said
	// which tool calls ran; with one (ran), each is built as it is read.
	msgs []message
	ran  bool
	// results maps a tool call's id to its result: 1 an error, 0 none; a
	// call with no result did not run (its message was aborted).
	results map[harness.Key]byte
	// want are the calls that make a command or edit record, whose result
	// is read for its outcome; outcomes holds each until the call's
	// records are built, when no Prescan ran.
	want     map[harness.Key]bool
	outcomes map[harness.Key]harness.Outcome
	// lines is how many lines Prescan read, when it ran: the parse stops
	// there. skim is Prescan's own walk, which reads no text.
	lines int
	skim  bool
	build builder
	// noHeader: the data held messages but no session header.
	noHeader bool
	warn     harness.Warnings
	scan     jsonscan.Scanner
	begun    bool
	base     int
}

func newParser(opts Options) *parser {
	if opts.Agent == "" {
		opts.Agent = AgentOf(opts.Path)
	}
	return &parser{opts: opts, results: map[harness.Key]byte{}, want: map[harness.Key]bool{}, outcomes: map[harness.Key]harness.Outcome{},
		build: builder{turn: -1, seen: map[harness.Record]int{}, open: map[harness.Key][]int{}}}
}

// Line reads one line; an unterminated last line that is not yet whole
// JSON is the agent still writing it, left for the next read, and so is
// any line past those Prescan read.
func (p *parser) Line(l *harness.Lines) bool {
	raw := l.Line
	if !p.begun {
		p.begun, p.base = true, l.Number-1
		raw = bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))
	}
	if p.ran && l.Number-p.base > p.lines {
		return false
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
	e, ok := decodeEntry(&p.scan, raw, p.skim, p.want)
	if !ok {
		p.warn.Add("not valid JSON", n)
		return
	}
	switch e.typ {
	case "session":
		if p.heads++; p.heads > 1 {
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
		for _, c := range m.calls {
			if shellTools[c.name] || editTools[c.name] {
				p.want[harness.KeyOf(c.id)] = true
			}
		}
		p.add(message{role: m.role, text: text, line: n, time: t, calls: m.calls})
	case "toolResult":
		if m.toolCallID != "" {
			var result byte
			if m.isError {
				result = 1
			}
			k := harness.KeyOf(m.toolCallID)
			p.results[k] = result
			if p.want[k] && !p.skim {
				delete(p.want, k)
				p.outcome(k, resultOutcome(m.isError, m.text))
			}
		}
	case "bashExecution":
		if cmd := strings.TrimSpace(m.command); cmd != "" {
			var o harness.Outcome
			if m.exitCode != nil {
				o = harness.Outcome{Status: harness.StatusOfExit(*m.exitCode), Exit: m.exitCode, Output: m.output}
			}
			p.add(message{role: m.role, line: n, time: t, command: cmd, outcome: o})
		}
	case "custom", "hookMessage", "branchSummary", "compactionSummary", "developer":
		// Injected by extensions, or summaries: not typed, not prose.
	default:
		p.warn.Add("a message of unknown role "+harness.Quoted(m.role), n)
	}
}

// add holds m until the end, or builds it when Prescan said which tool
// calls ran; Prescan's own walk keeps none.
func (p *parser) add(m message) {
	switch {
	case p.skim:
	case p.ran:
		p.build.add(m, p.head.cwd, p.results, p.outcomes)
	default:
		p.msgs = append(p.msgs, m)
	}
}

// outcome gives a call's records its outcome: held until they are built,
// or set on them when a Prescan had them built already. A result that
// comes after its call's turn was handed over in a piece is let go.
func (p *parser) outcome(k harness.Key, o harness.Outcome) {
	if !o.Known() {
		return
	}
	if !p.ran {
		p.outcomes[k] = o
		return
	}
	p.build.setOutcome(p.build.open[k], o)
	delete(p.build.open, k)
}

// Finish returns the history: its session, when the data held a header or
// a message, ending at end.
func (p *parser) Finish(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	for _, m := range p.msgs {
		p.build.add(m, p.head.cwd, p.results, p.outcomes)
	}
	p.msgs = nil
	if s, ok := p.session(end); ok {
		s.Messages, s.Records = p.build.s.Messages, p.build.s.Records
		h.Sessions = []harness.Session{s}
	}
	h.Warnings = p.warn.List()
	if p.noHeader {
		h.Warnings = append(h.Warnings, "no session header: the session is named from its file")
	}
	return h
}

// Piece hands over, when Prescan said which tool calls ran, the turns
// before the one being read; without, no turn is known whole before the
// end, and none is handed over.
func (p *parser) Piece(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	if !p.ran {
		return h
	}
	if s, ok := p.session(end); ok {
		s.Messages, s.Records = harness.SplitFinished(&p.build.s, p.build.turn)
		p.build.handed += len(s.Records)
		if len(s.Messages) > 0 || len(s.Records) > 0 {
			h.Sessions = []harness.Session{s}
		}
	}
	return h
}

// session is the session's header, ending at end; false when the data
// held neither a header nor a message.
func (p *parser) session(end int64) (harness.Session, bool) {
	if !p.head.seen && p.build.messages == 0 {
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
	if s.Started.IsZero() {
		s.Started = p.build.started
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
	return s, true
}

// builder turns messages, in order, into a session's messages and
// records.
type builder struct {
	s harness.Session
	// turn is the current turn, -1 before the first prompt; seen are its
	// records, each at its index counted from the session's first record
	// (handed are those pieces took), so an outcome finds its record after
	// a piece.
	turn   int
	seen   map[harness.Record]int
	handed int
	// open are the records of calls whose result is still to come.
	open map[harness.Key][]int
	// messages counts those added; started is the first one's time.
	messages int
	started  time.Time
}

// add appends m: a prompt, prose, and the records of its tool calls that
// ran (results) and of a command the user ran, paths relative to project;
// outcomes are those of calls whose result was read before.
func (b *builder) add(m message, project string, results map[harness.Key]byte, outcomes map[harness.Key]harness.Outcome) {
	b.messages++
	if b.started.IsZero() && !m.time.IsZero() {
		b.started = m.time
	}
	// record appends r once a turn; a call repeated in the turn (a test
	// run again after a fix) leaves its latest outcome on the one record.
	record := func(r harness.Record, line int) int {
		r.Turn = b.turn
		i, ok := b.seen[r]
		if !ok {
			i = b.handed + len(b.s.Records)
			b.seen[r] = i
			r.Line = line
			b.s.Records = append(b.s.Records, r)
		}
		return i
	}
	switch m.role {
	case "user":
		if strings.TrimSpace(m.text) == "" {
			return
		}
		b.turn++
		clear(b.seen)
		b.s.Messages = append(b.s.Messages, harness.Message{Role: harness.User, Text: m.text, Turn: b.turn, Line: m.line, Time: m.time})
	case "assistant":
		if strings.TrimSpace(m.text) != "" {
			b.s.Messages = append(b.s.Messages, harness.Message{Role: harness.Assistant, Text: m.text, Turn: b.turn, Line: m.line, Time: m.time})
		}
		for _, c := range m.calls {
			k := harness.KeyOf(c.id)
			result, ran := results[k]
			if !ran {
				continue
			}
			var at []int
			for _, r := range c.records(project, result == 1) {
				at = append(at, record(r, m.line))
			}
			if o, ok := outcomes[k]; ok {
				b.setOutcome(at, o)
				delete(outcomes, k)
			} else if len(at) > 0 {
				b.open[k] = at
			}
		}
	case "bashExecution":
		b.setOutcome([]int{record(harness.Record{Kind: harness.CommandRecord, Value: m.command}, m.line)}, m.outcome)
	}
}

// setOutcome gives the records at (indices from the session's first
// record) the outcome of their call: a command all of it, an edit its
// status, and pi's words when it failed. Records a piece took are passed.
func (b *builder) setOutcome(at []int, o harness.Outcome) {
	if !o.Known() {
		return
	}
	for _, i := range at {
		i -= b.handed
		if i < 0 || i >= len(b.s.Records) {
			continue
		}
		r := &b.s.Records[i]
		if r.Kind == harness.FileRecord {
			o = harness.Outcome{Status: o.Status, Output: o.Output}
			if o.Status != harness.Failed {
				o.Output = ""
			}
		}
		r.Outcome = o
	}
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
