package copilot

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// IDPrefix starts every Copilot CLI session's ID: copilot-<sessionId>.
const IDPrefix = "copilot-"

// agentInfix joins a sub-agent's session ID to its parent's:
// copilot-<sessionId>-agent-<toolCallId of the task call>.
const agentInfix = "-agent-"

var utf8BOM = []byte("\xEF\xBB\xBF")

// Parse reads one events.jsonl and returns its session, then one session
// per sub-agent whose events it holds, in the order each first appears. It
// never fails and never panics: invalid lines and unknown event types are
// skipped and counted in Warnings.
//
// Every session of the file starts at opts.Offset: a resumed session
// appends to the same file (session.resume), so the indexer re-reads a
// grown file from its start, as for a Claude Code transcript, and stores
// again only the turns that changed.
func Parse(data []byte, opts harness.ParseOptions) *harness.History {
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

// parser replays the events of one file into its sessions.
type parser struct {
	opts harness.ParseOptions
	// sessionID is session.start's sessionId; project the cwd of its
	// context (or of a session.resume, when the start is missing).
	sessionID string
	project   string
	started   time.Time
	main      *state
	// agents are the sub-agent sessions by the toolCallId of the task
	// call that ran them; order is every session as first seen.
	agents map[string]*state
	order  []*state
	// tasks are the task calls seen, by toolCallId: the session that made
	// each and the prompt it gave.
	tasks map[string]task
	// outcome holds, by toolCallId, what a call's later events said: its
	// completion reported no success (failed) or success (succeeded), it
	// listed a directory (listed), the user refused permission to run it
	// (denied).
	outcome map[harness.Key]byte
	// shells are the command calls whose completion is awaited, by
	// toolCallId; results, a whole parse's command outcomes until Finish.
	shells  map[harness.Key]shellCall
	results map[harness.Key]harness.Outcome
	// known: Prescan found every outcome, the session's ID, project and
	// start, so each call is a record or none as it is read and the turns
	// before the current one are final; the parse stops after the lines
	// Prescan read.
	known bool
	lines int
	base  int
	// skim is Prescan's own walk, which reads only those facts.
	skim  bool
	warn  harness.Warnings
	scan  jsonscan.Scanner
	begun bool
}

// The outcomes a call's later events give it.
const (
	failed byte = 1 << iota
	listed
	denied
	succeeded
)

// shellCall is a command call awaiting its completion: the session and
// turn it was made in, and when the outcomes were prescanned, the
// record's place among all the records the session made (-1 when it
// repeated one of its turn and was left out).
type shellCall struct {
	st   *state
	turn int
	rec  int
}

// task is a call of the task tool, which starts a sub-agent.
type task struct {
	from   *state
	prompt string
	line   int
	time   time.Time
}

// state is one session being built.
type state struct {
	// agent is the toolCallId of the task call that ran the session; empty
	// for the file's own session.
	agent  string
	parent *state
	turn   int
	first  time.Time
	msgs   []harness.Message
	// calls are the tool calls held until the end when the outcomes are
	// not known; when they are, recs are the records made of them, each
	// once a turn (seen).
	calls []call
	recs  []harness.Record
	seen  map[harness.Record]bool
	// handed counts the records pieces handed over: recs[i] is the
	// session's record handed+i.
	handed int
	// pieced: a piece handed over some of the session's turns.
	pieced bool
	// said is the last assistant text, so a task_complete summary that
	// repeats it is not a second message.
	said string
}

// call is a tool call that may become a record once the file is read: a
// file call whose completion failed touched nothing.
type call struct {
	id     string
	record harness.Record
}

func newParser(opts harness.ParseOptions) *parser {
	p := &parser{opts: opts, agents: map[string]*state{}, tasks: map[string]task{}, outcome: map[harness.Key]byte{}, shells: map[harness.Key]shellCall{}, results: map[harness.Key]harness.Outcome{}}
	p.main = &state{turn: -1, seen: map[harness.Record]bool{}}
	p.order = []*state{p.main}
	return p
}

// Line replays one line: an unterminated last line that is not yet whole
// JSON is the CLI still writing it, left for the next read, and so is any
// line past those Prescan read.
func (p *parser) Line(l *harness.Lines) bool {
	raw := l.Line
	if !p.begun {
		p.begun, p.base = true, l.Number-1
		raw = bytes.TrimPrefix(raw, utf8BOM)
	}
	if p.known && l.Number-p.base > p.lines {
		return false
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return true
	}
	if l.Partial && !json.Valid(raw) {
		return false
	}
	e, ok := decodeEvent(&p.scan, raw)
	if !ok {
		p.warn.Add("not a JSON object", l.Number)
		return true
	}
	p.event(e, l.Number)
	return true
}

// event applies one event to its session.
func (p *parser) event(e event, n int) {
	if p.skim {
		switch string(e.Type) {
		case "session.start", "session.resume", "tool.execution_complete", "permission.completed":
		default:
			return
		}
	}
	t := parseTime(e.Timestamp)
	st := p.main
	if len(e.ParentToolCallID) > 0 {
		st = p.agent(text(e.ParentToolCallID), t)
	}
	if st.first.IsZero() && !t.IsZero() {
		st.first = t
	}
	switch typ := string(e.Type); typ {
	case "session.start":
		if p.sessionID == "" {
			p.sessionID = strings.TrimSpace(text(e.SessionID))
		}
		if p.started.IsZero() {
			p.started = parseTime(e.StartTime)
		}
		p.setProject(e.Cwd)
	case "session.resume":
		p.setProject(e.Cwd)
	case "user.message":
		// content is what the person typed; transformedContent, what the
		// model was sent, is never read.
		if s := strings.TrimSpace(text(e.Content)); s != "" {
			st.turn++
			clear(st.seen)
			st.msgs = append(st.msgs, harness.Message{Role: harness.User, Text: s, Turn: st.turn, Line: n, Time: t})
		}
	case "assistant.message":
		st.say(strings.TrimSpace(text(e.Content)), n, t)
	case "session.task_complete":
		st.say(strings.TrimSpace(text(e.Summary)), n, t)
	case "tool.execution_start":
		p.toolStart(st, e, n, t)
	case "tool.execution_complete":
		if e.HasSuccess {
			bit := succeeded
			if !e.Success {
				bit = failed
			}
			p.outcome[harness.KeyOf(text(e.ToolCallID))] |= bit
		}
		p.shellDone(e)
		if string(e.ViewType) == "directory" {
			p.outcome[harness.KeyOf(text(e.ToolCallID))] |= listed
		}
	case "permission.completed":
		if bytes.HasPrefix(e.Verdict, []byte("denied")) {
			p.outcome[harness.KeyOf(text(e.ToolCallID))] |= denied
		}
	case "subagent.started":
		if id := text(e.ToolCallID); id != "" {
			p.agent(id, t)
		}
	case "":
		p.warn.Add("without an event type", n)
	default:
		if !known(typ) {
			p.warn.Add("of unknown event type "+harness.Quoted(typ), n)
		}
	}
}

// say adds an assistant text to the session, unless it is empty or
// repeats the text just said.
func (st *state) say(s string, n int, t time.Time) {
	if s == "" || s == st.said {
		return
	}
	st.said = s
	st.msgs = append(st.msgs, harness.Message{Role: harness.Assistant, Text: s, Turn: st.turn, Line: n, Time: t})
}

// toolStart notes a tool call: a record when the tool names a file or a
// command, and the prompt of a task call for the sub-agent it starts.
func (p *parser) toolStart(st *state, e event, n int, t time.Time) {
	id := text(e.ToolCallID)
	name := string(e.ToolName)
	if name == "task" && id != "" {
		p.tasks[id] = task{from: st, prompt: strings.TrimSpace(text(e.Args.Prompt)), line: n, time: t}
	}
	r, ok := toolRecord(name, e.Args)
	if !ok {
		return
	}
	r.Turn, r.Line = st.turn, n
	if r.Kind == harness.CommandRecord && id != "" {
		p.shells[harness.KeyOf(id)] = shellCall{st: st, turn: st.turn, rec: -1}
	}
	if !p.known {
		st.calls = append(st.calls, call{id: id, record: r})
		return
	}
	p.record(st, call{id: id, record: r})
}

// shellDone gives a command its outcome when its completion comes in the
// turn that made it. One that comes later stays unknown: a piece may have
// handed the record over, and a whole parse leaves it unknown alike so
// that both give the same records.
func (p *parser) shellDone(e event) {
	k := harness.KeyOf(text(e.ToolCallID))
	sc, ok := p.shells[k]
	if !ok {
		return
	}
	delete(p.shells, k)
	if sc.st.turn != sc.turn {
		return
	}
	o := shellOutcome(!e.HasSuccess || e.Success, e.Result)
	if !p.known {
		p.results[k] = o
		return
	}
	if i := sc.rec - sc.st.handed; sc.rec >= 0 && i >= 0 && i < len(sc.st.recs) {
		sc.st.recs[i].Outcome = o
	}
}

// agent returns the sub-agent session of the task call id, starting it.
func (p *parser) agent(id string, t time.Time) *state {
	if st, ok := p.agents[id]; ok {
		return st
	}
	st := &state{agent: id, turn: -1, first: t, parent: p.main, seen: map[harness.Record]bool{}}
	if tk, ok := p.tasks[id]; ok {
		st.parent = tk.from
		if !tk.time.IsZero() {
			st.first = tk.time
		}
		if tk.prompt != "" {
			// The sub-agent's first prompt is the one its task call gave.
			st.turn = 0
			st.msgs = append(st.msgs, harness.Message{Role: harness.User, Text: tk.prompt, Turn: 0, Line: tk.line, Time: tk.time})
		}
	}
	p.agents[id] = st
	p.order = append(p.order, st)
	return st
}

func (p *parser) setProject(cwd []byte) {
	if p.project == "" {
		p.project = strings.TrimSpace(text(cwd))
	}
}

// Finish returns the sessions, each ending at end: the file's own, then
// its sub-agents, each with something said or done.
func (p *parser) Finish(end int64) *harness.History {
	for _, st := range p.order {
		for _, c := range st.calls {
			p.record(st, c)
		}
		st.calls = nil
	}
	h := &harness.History{Path: p.opts.Path}
	var named string
	h.Sessions, named = p.sessions(end, func(st *state) ([]harness.Message, []harness.Record) { return st.msgs, st.recs })
	h.Warnings = p.warn.List()
	if named != "" && len(h.Sessions) > 0 {
		h.Warnings = append(h.Warnings, named)
	}
	return h
}

// Piece hands over, when Prescan found the outcomes, each session's turns
// before its current one; without them no call is known to be a record
// before the end, and none is handed over.
func (p *parser) Piece(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	if !p.known {
		return h
	}
	all, _ := p.sessions(end, func(st *state) ([]harness.Message, []harness.Record) {
		var sess harness.Session
		sess.Messages, sess.Records = st.msgs, st.recs
		msgs, recs := harness.SplitFinished(&sess, st.turn)
		st.msgs, st.recs = sess.Messages, sess.Records
		st.handed += len(recs)
		if len(msgs) > 0 || len(recs) > 0 {
			st.pieced = true
		}
		return msgs, recs
	})
	for _, s := range all {
		if len(s.Messages) > 0 || len(s.Records) > 0 {
			h.Sessions = append(h.Sessions, s)
		}
	}
	return h
}

// sessions gives, in order, each session with a message or a record that
// take gives, or of which a piece held some, numbered from the first
// ordinal, and the warning for a session ID taken from the directory.
func (p *parser) sessions(end int64, take func(*state) ([]harness.Message, []harness.Record)) ([]harness.Session, string) {
	sid := p.sessionID
	var named string
	if !harness.IsUUID(sid) {
		// A file whose session.start is lost, or names its session in
		// another shape: its directory is named by the session id
		// (session-state/<sessionId>/events.jsonl).
		sid = filepath.Base(filepath.Dir(p.opts.Path))
		named = "no session.start with a UUID sessionId: the session is named from its directory"
	}
	ordinal := max(p.opts.FirstOrdinal, 1)
	var out []harness.Session
	for _, st := range p.order {
		s := harness.Session{
			ID:      p.id(sid, st),
			Offset:  p.opts.Offset,
			End:     end,
			Project: p.project,
			Started: st.first,
		}
		s.Messages, s.Records = take(st)
		if st == p.main && !p.started.IsZero() {
			s.Started = p.started
		}
		if len(s.Messages) == 0 && len(s.Records) == 0 && !st.pieced {
			continue
		}
		if st.agent != "" {
			s.Parent, s.Subagent = p.id(sid, st.parent), true
		}
		s.Ordinal = ordinal
		ordinal++
		out = append(out, s)
	}
	return out, named
}

// id is the session ID of st.
func (p *parser) id(sid string, st *state) string {
	if st.agent == "" {
		return IDPrefix + sid
	}
	return IDPrefix + sid + agentInfix + st.agent
}

// record adds the tool call c to st's records, its path relative to the
// project, with what is known of how it ended. A call the user refused
// permission for never ran and gives no record, nor does a view that
// failed (a missing file) or listed a directory. An edit that failed is
// kept, marked failed and without its text; an edit keeps its text only
// once it succeeded. A command that ran is kept whatever its exit. A
// record repeated within a turn is kept once, whatever its outcome.
func (p *parser) record(st *state, c call) {
	r := c.record
	k := harness.KeyOf(c.id)
	out := p.outcome[k]
	if out&denied != 0 {
		return
	}
	switch {
	case r.Kind == harness.CommandRecord:
		if out&failed != 0 {
			r.Outcome.Status = harness.Failed
		}
		if o, ok := p.results[k]; ok {
			r.Outcome = o
			delete(p.results, k)
		}
	case out&listed != 0, out&failed != 0 && r.Action != harness.Edited:
		return
	case r.Action == harness.Edited && out&failed != 0:
		r.Outcome.Status, r.Span = harness.Failed, harness.Span{}
	case r.Action == harness.Edited && out&succeeded != 0:
		r.Outcome.Status = harness.Succeeded
	default:
		r.Span = harness.Span{}
	}
	if r.Kind == harness.FileRecord {
		r.Value = relative(p.project, r.Value)
		if r.Value == "" {
			return
		}
	}
	key := r
	key.Line, key.Outcome = 0, harness.Outcome{}
	if st.seen[key] {
		return
	}
	st.seen[key] = true
	if sc, ok := p.shells[k]; ok && r.Kind == harness.CommandRecord {
		sc.rec = st.handed + len(st.recs)
		p.shells[k] = sc
	}
	st.recs = append(st.recs, r)
}

// relative writes p relative to the project when it lies under it; the
// project itself (view lists a directory) is no file.
func relative(project, p string) string {
	if strings.TrimSpace(p) == "" {
		return ""
	}
	rel := harness.RelPath(project, p)
	if project != "" && rel == harness.RelPath("", project) {
		return ""
	}
	return rel
}

func parseTime(raw []byte) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, string(raw))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
