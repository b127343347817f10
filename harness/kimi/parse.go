package kimi

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// line is the part of a line of either product deja reads. kimi-cli's
// wire lines are {timestamp, message: {type, payload}}; its context lines
// are messages ({role, content, tool_calls, tool_call_id}); Kimi Code's
// are records {type, time, …}. Everything else (llm.request traces, the
// system prompt, usage) is skipped by the decoder unread.
type line struct {
	Type      string          `json:"type"`
	Time      float64         `json:"time"`
	Timestamp float64         `json:"timestamp"`
	CreatedAt float64         `json:"created_at"`
	Cwd       string          `json:"cwd"`
	Input     json.RawMessage `json:"input"`
	Origin    *origin         `json:"origin"`
	Event     *loopEvent      `json:"event"`
	Message   *message        `json:"message"`
	// A kimi-cli context line is a message at the top.
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []toolCall      `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// message is a kimi-cli wire event ({type, payload}) or a Kimi Code
// context message ({role, content, toolCalls, toolCallId, isError,
// origin}).
type message struct {
	Type       string          `json:"type"`
	Payload    *payload        `json:"payload"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []toolCall      `json:"toolCalls"`
	ToolCallID string          `json:"toolCallId"`
	IsError    bool            `json:"isError"`
	Origin     *origin         `json:"origin"`
}

// payload is a kimi-cli event's payload (src/kimi_cli/wire/types.py):
// TurnBegin and SteerInput's user_input, ContentPart's type and text,
// ToolCall's id and function, ToolResult's tool_call_id and return_value,
// SubagentEvent's agent and wrapped event.
type payload struct {
	UserInput   json.RawMessage `json:"user_input"`
	Type        string          `json:"type"`
	Text        string          `json:"text"`
	ID          string          `json:"id"`
	Function    *function       `json:"function"`
	ToolCallID  string          `json:"tool_call_id"`
	ReturnValue *result         `json:"return_value"`
	TaskCallID  string          `json:"task_tool_call_id"`
	ParentCall  string          `json:"parent_tool_call_id"`
	AgentID     string          `json:"agent_id"`
	Event       *message        `json:"event"`
}

// loopEvent is a Kimi Code loop event (packages/agent-core/src/loop/
// events.ts): step.begin, content.part, tool.call, tool.result, step.end.
type loopEvent struct {
	Type       string          `json:"type"`
	Part       *part           `json:"part"`
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Args       json.RawMessage `json:"args"`
	Result     *result         `json:"result"`
}

// result is how a tool call ended: kimi-cli's return_value {is_error,
// output, message} or Kimi Code's {isError, output, message}.
type result struct {
	IsError     bool            `json:"is_error"`
	IsErrorCode bool            `json:"isError"`
	Output      json.RawMessage `json:"output"`
	Message     string          `json:"message"`
}

type origin struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type part struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// toolCall is a call in a message: OpenAI's {id, function: {name,
// arguments}} (kimi-cli) or {id, name, arguments} (Kimi Code).
type toolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Function  *function       `json:"function"`
}

type function struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// maxCwd bounds a work directory: a longer one is no directory.
const maxCwd = 4096

// Parse reads one session file and returns its session, then one session
// per subagent whose events a kimi-cli wire log wraps, in the order they
// first appear. It never fails: bad lines are skipped and counted in
// Warnings.
//
// Every session of a file starts where data starts, so the indexer reads a
// grown file again from its first byte (see harness.FileReader).
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
	place place
	// main is the file's own session; others are subagents whose events
	// it wraps, by key.
	main   *state
	order  []*state
	byKey  map[string]*state
	parent string
	// prompted says a turn.prompt was read: Kimi Code's user messages are
	// then copies of the prompts, not prompts of their own.
	prompted bool
	warn     harness.Warnings
	flags    json.ParseFlags
	// pending holds, by call id, the records of each call whose result
	// has not come yet.
	pending map[string]call
	// ran says Prescan read the file: its lines up to forked (relative to
	// base, the line before the first) are a fork's copies, and the parse
	// stops after lines, where Prescan stopped.
	ran                 bool
	begun               bool
	base, forked, lines int
}

// state is one session being built.
type state struct {
	sess harness.Session
	turn int
	// pieced says an earlier piece held some of the session's turns.
	pieced bool
	// answer is the text of the step being read, line and at where it
	// began.
	answer []string
	line   int
	at     time.Time
}

// call is the record at index at of st's records, waiting for its call's
// result; shell marks a command run in the foreground, whose success is an
// exit status of 0.
type call struct {
	st    *state
	at    int
	shell bool
}

func newParser(opts harness.ParseOptions, flags json.ParseFlags) *parser {
	p := &parser{opts: opts, byKey: map[string]*state{}, flags: flags, pending: map[string]call{}, place: placeOf(opts.Path)}
	p.prescanned(opts.Prescanned)
	p.main = p.newState(p.place.agent)
	if p.place.agent != "" {
		p.main.sess.Parent = IDPrefix + p.sessionID()
	}
	if p.place.code {
		var st sessionState
		if p.place.sessionDir != "" && readSide(filepath.Join(p.place.sessionDir, "state.json"), &st) {
			if st.WorkDir != "" && len(st.WorkDir) <= maxCwd {
				p.main.sess.Project = filepath.Clean(st.WorkDir)
			}
			p.parent = st.ForkedFrom
			if a, ok := st.Agents[p.place.dir]; ok && p.place.agent != "" && a.ParentAgentID != "" && a.ParentAgentID != "main" {
				p.main.sess.Parent = IDPrefix + p.sessionID() + agentInfix + agentKey(a.ParentAgentID)
			}
		}
	} else if wd := workDirOf(p.place.root, p.place.bucket); wd != "" {
		p.main.sess.Project = filepath.Clean(wd)
	}
	return p
}

// sessionID is the product's session id as the IDs carry it.
func (p *parser) sessionID() string {
	sid := p.place.session
	if len(sid) > maxSession {
		sid = sid[:maxSession]
	}
	return sid
}

// newState starts a session: the file's own, or the subagent agent's.
func (p *parser) newState(agent string) *state {
	st := &state{turn: -1}
	st.sess.Offset = p.opts.Offset
	st.sess.ID = IDPrefix + p.sessionID()
	if agent != "" {
		st.sess.ID += agentInfix + agent
		st.sess.Subagent = true
	}
	p.order = append(p.order, st)
	p.byKey[agent] = st
	return st
}

// Line handles one line and reports whether it was consumed (a partial
// last line that is not yet complete JSON is not).
func (p *parser) Line(l *harness.Lines) bool {
	raw := bytes.TrimSpace(l.Line)
	if !p.begun {
		p.begun, p.base = true, l.Number-1
		raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	}
	if p.ran && l.Number-p.base > p.lines {
		return false
	}
	if len(raw) == 0 {
		return true
	}
	// A fork's copies of its source's records are the source's turns;
	// only the work directory and the start are read of them.
	copied := p.ran && l.Number-p.base < p.forked
	// A tool's result is the largest kind of line (a file read, a
	// command's output) and holds no words of either side: it is skipped
	// undecoded unless it ends a call deja made a record of.
	if isResult(raw) && (!l.Partial || json.Valid(raw)) && (copied || !p.awaited(raw)) {
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
	if copied && r.Type != "metadata" && r.Type != "config.update" {
		return true
	}
	switch {
	case r.Type == "metadata":
		p.started(p.main, msTime(r.CreatedAt))
	case r.Message != nil && r.Message.Payload != nil:
		p.cliEvent(p.main, r.Message, l.Number, secondsTime(r.Timestamp))
	case r.Role != "":
		p.contextMessage(p.main, &message{Role: r.Role, Content: r.Content, ToolCalls: r.ToolCalls, ToolCallID: r.ToolCallID}, l.Number, time.Time{})
	case strings.Contains(r.Type, "."), r.Type == "forked":
		p.codeRecord(&r, l.Number)
	default:
		p.warn.Add("of unknown type "+harness.Quoted(r.Type), l.Number)
	}
	return true
}

// isResult reports a line that holds a tool's result: kimi-cli's
// ToolResult (its return_value) or a tool message of a context file,
// Kimi Code's tool.result (its result, after parentUuid) or a tool message
// of a migrated session.
func isResult(raw []byte) bool {
	return harness.HasKey(raw, "return_value") || harness.HasKey(raw, "parentUuid") && harness.HasKey(raw, "result") ||
		harness.AnyValue(raw, "role", func(v string) bool { return v == "tool" })
}

// awaited reports whether a result line answers a pending call, reading
// only the ids after its call id keys.
func (p *parser) awaited(raw []byte) bool {
	if len(p.pending) == 0 {
		return false
	}
	want := func(id string) bool { _, ok := p.pending[id]; return ok }
	return harness.AnyValue(raw, "tool_call_id", want) || harness.AnyValue(raw, "toolCallId", want)
}

// secondsTime is a kimi-cli timestamp, epoch seconds as a float.
func secondsTime(s float64) time.Time {
	if s <= 0 || s > 1e11 || math.IsNaN(s) {
		return time.Time{}
	}
	// Python's time.time() carries microseconds at most; rounding to them
	// keeps a float's last bits out of the time.
	return time.UnixMicro(int64(math.Round(s * 1e6))).UTC()
}

// msTime is a Kimi Code time, epoch milliseconds.
func msTime(ms float64) time.Time {
	if ms <= 0 || ms > 1e14 || math.IsNaN(ms) {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms)).UTC()
}

func (p *parser) started(st *state, t time.Time) {
	if !t.IsZero() && (st.sess.Started.IsZero() || t.Before(st.sess.Started)) {
		st.sess.Started = t
	}
}

// cliEvent reads one kimi-cli wire event into st.
func (p *parser) cliEvent(st *state, m *message, n int, t time.Time) {
	p.started(st, t)
	pl := m.Payload
	if pl == nil {
		return
	}
	switch m.Type {
	case "TurnBegin", "SteerInput":
		p.prompt(st, contentText(pl.UserInput), n, t)
	case "StepBegin", "TurnEnd", "StepInterrupted":
		p.flushAnswer(st)
	case "ContentPart":
		if pl.Type == "text" {
			p.addAnswer(st, pl.Text, n, t)
		}
	case "ToolCall":
		if pl.Function != nil {
			p.toolCall(st, pl.ID, pl.Function.Name, pl.Function.Arguments, n)
		}
	case "ToolResult":
		if pl.ReturnValue != nil {
			rv := pl.ReturnValue
			p.toolResult(pl.ToolCallID, rv.IsError, rv.Message, func() string { return contentText(rv.Output) })
		}
	case "SubagentEvent":
		// A subagent with an agent_id writes its own wire log
		// (subagents/<agent_id>/wire.jsonl), read as a file of its own;
		// before that (kimi-cli 1.17), its events live here alone.
		if pl.AgentID != "" || pl.Event == nil || pl.Event.Type == "SubagentEvent" {
			return
		}
		call := pl.TaskCallID
		if call == "" {
			call = pl.ParentCall
		}
		key := "task-" + fileComponent(call)
		sub, ok := p.byKey[key]
		if !ok {
			sub = p.newState(key)
			sub.sess.Parent = st.sess.ID
			sub.sess.Project = st.sess.Project
		}
		p.cliEvent(sub, pl.Event, n, t)
	}
}

// codeRecord reads one Kimi Code record.
func (p *parser) codeRecord(r *line, n int) {
	st := p.main
	t := msTime(r.Time)
	p.started(st, t)
	switch r.Type {
	case "config.update":
		if r.Cwd != "" && len(r.Cwd) <= maxCwd {
			st.sess.Project = filepath.Clean(r.Cwd)
		}
	case "forked":
		// A fork copies its source's records before this one: they are the
		// source's turns, read in its own file.
		for id, c := range p.pending {
			if c.st == st {
				delete(p.pending, id)
			}
		}
		st.sess.Messages, st.sess.Records, st.turn, st.answer = nil, nil, -1, nil
		st.sess.Started = t
	case "turn.prompt", "turn.steer":
		p.prompted = true
		if p.userOrigin(r.Origin) {
			p.flushAnswer(st)
			p.prompt(st, contentText(r.Input), n, t)
		}
	case "context.append_loop_event":
		if r.Event != nil {
			p.loopEvent(st, r.Event, n, t)
		}
	case "context.append_message":
		if r.Message != nil {
			p.contextMessage(st, r.Message, n, t)
		}
	}
}

// userOrigin reports a prompt the user gave: typed, or a skill or plugin
// command the user ran; for a subagent, the task its parent gave it.
// Injections, hook results, cron jobs, retries and compaction summaries
// are the CLI's.
func (p *parser) userOrigin(o *origin) bool {
	if o == nil {
		return true
	}
	switch o.Kind {
	case "user", "skill_activation", "plugin_command":
		return true
	case "system_trigger":
		return p.place.agent != "" && o.Name == "subagent"
	}
	return false
}

// loopEvent reads one Kimi Code loop event into st.
func (p *parser) loopEvent(st *state, e *loopEvent, n int, t time.Time) {
	switch e.Type {
	case "step.begin", "step.end":
		p.flushAnswer(st)
	case "content.part":
		if e.Part != nil && e.Part.Type == "text" {
			p.addAnswer(st, e.Part.Text, n, t)
		}
	case "tool.call":
		p.toolCall(st, e.ToolCallID, e.Name, e.Args, n)
	case "tool.result":
		if e.Result != nil {
			res := e.Result
			p.toolResult(e.ToolCallID, res.IsErrorCode, res.Message, func() string { return contentText(res.Output) })
		}
	}
}

// contextMessage reads a whole message: a kimi-cli context line, or a
// Kimi Code context.append_message (a migrated session holds nothing
// else; a live one writes its prompts so too, after turn.prompt).
func (p *parser) contextMessage(st *state, m *message, n int, t time.Time) {
	switch m.Role {
	case "user":
		if p.prompted || !p.userOrigin(m.Origin) {
			return
		}
		p.flushAnswer(st)
		p.prompt(st, contentText(m.Content), n, t)
	case "assistant":
		p.flushAnswer(st)
		p.addAnswer(st, contentText(m.Content), n, t)
		p.flushAnswer(st)
		for _, c := range m.ToolCalls {
			name, args := c.Name, c.Arguments
			if c.Function != nil {
				name, args = c.Function.Name, c.Function.Arguments
			}
			p.toolCall(st, c.ID, name, args, n)
		}
	case "tool":
		if _, ok := p.pending[m.ToolCallID]; ok {
			output, msg, failed := systemNote(m.Content)
			p.toolResult(m.ToolCallID, m.IsError || failed, msg, func() string { return output })
		}
	}
}

// systemNote reads a context's tool message: kosong puts first the
// tool's message as "<system>message</system>", or "<system>ERROR:
// message</system>" for a call that failed; the text after it is the
// output. It returns the output, the message and whether it says the call
// failed.
func systemNote(raw json.RawMessage) (string, string, bool) {
	var parts []part
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &parts) != nil || len(parts) == 0 {
		return contentText(raw), "", false
	}
	note, open := strings.CutPrefix(parts[0].Text, "<system>")
	note, closed := strings.CutSuffix(note, "</system>")
	if !open || !closed || parts[0].Type != "text" {
		return partsText(parts), "", false
	}
	note, failed := strings.CutPrefix(note, "ERROR: ")
	return partsText(parts[1:]), note, failed
}

// prompt adds a user message and opens its turn.
func (p *parser) prompt(st *state, text string, n int, t time.Time) {
	p.flushAnswer(st)
	if text = strings.TrimSpace(text); text == "" {
		return
	}
	st.turn++
	st.sess.Messages = append(st.sess.Messages, harness.Message{Role: harness.User, Text: text, Turn: st.turn, Line: n, Time: t})
}

// addAnswer adds a text part to the step's answer.
func (p *parser) addAnswer(st *state, text string, n int, t time.Time) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if len(st.answer) == 0 {
		st.line, st.at = n, t
	}
	st.answer = append(st.answer, text)
}

// flushAnswer ends the step's answer: its text parts, joined, are one
// assistant message.
func (p *parser) flushAnswer(st *state) {
	if len(st.answer) == 0 {
		return
	}
	text := strings.TrimSpace(strings.Join(st.answer, ""))
	st.answer = nil
	st.sess.Messages = append(st.sess.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: st.turn, Line: st.line, Time: st.at})
}

// contentText is the text of a message's content: a string, or the text
// parts of a list of parts (think parts and media left out).
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '[':
		var parts []part
		if json.Unmarshal(raw, &parts) == nil {
			return partsText(parts)
		}
	}
	return ""
}

// partsText joins the text parts of a content list.
func partsText(parts []part) string {
	var text []string
	for _, pt := range parts {
		if pt.Type == "text" && strings.TrimSpace(pt.Text) != "" {
			text = append(text, pt.Text)
		}
	}
	return strings.Join(text, "\n")
}

// Finish closes the sessions: each ends at end, where the parse stopped.
// A session with no message and no record is left out, unless an earlier
// piece held some of its turns.
func (p *parser) Finish(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	for _, st := range p.order {
		p.flushAnswer(st)
	}
	h.Sessions = p.close(end, func(st *state) harness.Session { return st.sess })
	h.Warnings = p.warn.List()
	return h
}

// Piece hands over every session's turns before the one being read, which
// no later line can add to: a line's messages and records go to the
// session's current turn, and a call's result comes before the next
// prompt.
func (p *parser) Piece(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	for _, s := range p.close(end, func(st *state) harness.Session {
		sess := st.sess
		sess.Messages, sess.Records = harness.SplitFinished(&st.sess, st.turn)
		p.handed(st, len(sess.Records))
		if len(sess.Messages) > 0 || len(sess.Records) > 0 {
			st.pieced = true
		}
		return sess
	}) {
		if len(s.Messages) > 0 || len(s.Records) > 0 {
			h.Sessions = append(h.Sessions, s)
		}
	}
	return h
}

// handed forgets the pending calls among a session's first n records,
// which a piece has handed over, and moves the others down with the
// records kept.
func (p *parser) handed(st *state, n int) {
	if n == 0 {
		return
	}
	for id, c := range p.pending {
		if c.st != st {
			continue
		}
		if c.at < n {
			delete(p.pending, id)
			continue
		}
		c.at -= n
		p.pending[id] = c
	}
}

// close gives, in order, each session with a message or a record, or one
// a piece held, as take makes it, ending at end and numbered from the
// first ordinal; the file's own session gets the session it was forked
// from.
func (p *parser) close(end int64, take func(*state) harness.Session) []harness.Session {
	ordinal := max(p.opts.FirstOrdinal, 1)
	var out []harness.Session
	for _, st := range p.order {
		if len(st.sess.Messages) == 0 && len(st.sess.Records) == 0 && !st.pieced {
			continue
		}
		st.sess.End = end
		st.sess.Ordinal = ordinal
		ordinal++
		if st == p.main && !st.sess.Subagent && p.parent != "" && validSession(p.parent) {
			st.sess.Parent = IDPrefix + p.parent
		}
		out = append(out, take(st))
	}
	return out
}
