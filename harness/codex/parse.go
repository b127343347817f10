package codex

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// rolloutLine is a wrapped line, {timestamp, type, payload} (0.34.0 on,
// §2.2), or, in the flat files of August 2025, a bare item whose own type
// says what it is, or their first line of session metadata.
type rolloutLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// RecordType is a flat file's {"record_type":"state"} line.
	RecordType string `json:"record_type"`
	// ID and Instructions mark a flat file's metadata line.
	ID           string          `json:"id"`
	Instructions json.RawMessage `json:"instructions"`
}

// meta is session_meta's payload (§2.3).
type meta struct {
	ID           string          `json:"id"`
	Timestamp    string          `json:"timestamp"`
	Cwd          string          `json:"cwd"`
	Source       json.RawMessage `json:"source"`
	ForkedFromID string          `json:"forked_from_id"`
}

// item is a response_item payload, or a flat file's bare item (§2.4).
type item struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name"`
	// Arguments is a JSON string holding JSON in function calls, an
	// object in some newer items; Input is custom_tool_call's raw text.
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	// CallID joins a call to its result.
	CallID string `json:"call_id"`
	// Action is a local_shell_call's command.
	Action *struct {
		Command []string `json:"command"`
	} `json:"action"`
}

type part struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// event is an event_msg payload.
type event struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// turnContext is a turn_context payload: the working directory may change.
type turnContext struct {
	Cwd string `json:"cwd"`
}

// knownTypes are wrapped line types read or deliberately left alone.
var knownTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true,
}

// Parse reads one rollout and returns its session. It never fails: bad
// lines are skipped and counted in Warnings.
//
// Codex logs each message twice, as a response_item the model saw and as
// an event_msg the user saw (§2.5). Messages are read from one stream
// only: the events, whose user_message is the text as typed, when the
// rollout has any; else (flat and early files) the response items, less
// the context Codex injects as user messages. Tool calls are read from the
// response items, where alone they are logged.
func Parse(data []byte, opts harness.ParseOptions) *harness.History {
	if opts.Offset == 0 && isLegacy(data) {
		return parseLegacy(data, opts)
	}
	p := newParser(opts, hasUserEvents(data), json.ZeroCopy)
	lines := harness.NewLines(data)
	end := 0
	for lines.Next() {
		if p.line(lines) {
			end = lines.End()
		}
	}
	return p.Finish(opts.Offset + int64(end))
}

// newParser starts the parse of a rollout from opts.Offset, reading its
// messages from the events or from the response items (see Parse), and
// decoding with flags: ZeroCopy for bytes held whole, none for lines
// streamed, whose bytes are let go.
func newParser(opts harness.ParseOptions, useEvents bool, flags json.ParseFlags) *parser {
	p := &parser{opts: opts, hist: &harness.History{Path: opts.Path}, st: state{turn: -1}, useEvents: useEvents, flags: flags}
	p.st.sess.Offset = opts.Offset
	return p
}

type parser struct {
	opts      harness.ParseOptions
	hist      *harness.History
	useEvents bool
	st        state
	warn      harness.Warnings
	// started is set once a session_meta was read.
	started bool
	flags   json.ParseFlags
}

type state struct {
	sess harness.Session
	turn int
	id   string
	// pieced says an earlier piece held some of the session's turns.
	pieced bool
	// pending are the records of calls whose result is still to come, by
	// call id; handed counts the records pieces took, so an index stays
	// true after a piece, and a result for a record handed over is let go.
	pending map[string]callRecords
	handed  int
}

// callRecords are the records one call made: n from index start, counted
// from the session's first record.
type callRecords struct{ start, n int }

// Line handles one line and reports whether it was consumed (a partial
// last line that is not yet complete JSON is not).
func (p *parser) Line(l *harness.Lines) bool { return p.line(l) }

func (p *parser) line(l *harness.Lines) bool {
	raw := bytes.TrimSpace(l.Line)
	if len(raw) == 0 {
		return true
	}
	// Lines deja does not read are not decoded, nor validated unless they
	// may be half written (the last line): a damaged one among them would
	// be skipped anyway.
	typ, payload := lineHead(raw)
	if p.skippable(typ, payload) && (!l.Partial || json.Valid(raw)) {
		if len(p.st.pending) > 0 {
			p.result(raw, typ, payload)
		}
		return true
	}
	var rl rolloutLine
	if _, err := json.Parse(raw, &rl, p.flags); err != nil {
		if l.Partial {
			return false
		}
		p.warn.Add(json.Problem(err), l.Number)
		return true
	}
	t := harness.ParseTime(rl.Timestamp)
	switch {
	case rl.Payload != nil:
		p.wrapped(rl, t, l.Number)
	case rl.RecordType != "":
		// Flat files' state lines carry nothing to read.
	case rl.Type == "" && rl.ID != "":
		p.meta(meta{ID: rl.ID, Timestamp: rl.Timestamp})
	case rl.Type != "":
		var it item
		if _, err := json.Parse(raw, &it, p.flags); err != nil {
			p.warn.Add("with an unreadable item", l.Number)
			return true
		}
		p.item(it, t, l.Number)
	default:
		p.warn.Add("of no known shape", l.Number)
	}
	return true
}

// unreadPayloads are the payload types that hold no message nor call:
// tool results (read apart, and only for calls with records, see result),
// reasoning, undo snapshots, token counts. They are most of a rollout's
// bytes.
var unreadPayloads = map[string]bool{
	"function_call_output": true, "custom_tool_call_output": true, "reasoning": true,
	"ghost_snapshot": true, "token_count": true, "agent_reasoning": true, "exec_command_end": true,
	"patch_apply_end": true,
}

// skippable reports a line that, by its type and its payload's type
// (lineHead), holds nothing deja reads: a payload type it never reads, a
// message of the stream not read, or a turn context once the project is
// known. Walking a line to them costs a fraction of decoding it.
func (p *parser) skippable(typ, payload []byte) bool {
	switch {
	case !p.useEvents && string(typ) == "event_msg":
		return true
	case p.st.sess.Project != "" && string(typ) == "turn_context":
		return true
	}
	if payload == nil {
		// A flat file's bare item: its own type says what it is.
		return unreadPayloads[string(typ)]
	}
	return unreadPayloads[string(payload)] || (p.useEvents && string(payload) == "message")
}

func (p *parser) wrapped(rl rolloutLine, t time.Time, n int) {
	if !knownTypes[rl.Type] {
		p.warn.Add("of unknown type "+harness.Quoted(rl.Type), n)
		return
	}
	var err error
	switch rl.Type {
	case "session_meta":
		var m meta
		if _, err = json.Parse(rl.Payload, &m, p.flags); err == nil {
			p.meta(m)
		}
	case "response_item":
		var it item
		if _, err = json.Parse(rl.Payload, &it, p.flags); err == nil {
			p.item(it, t, n)
		}
	case "event_msg":
		if !p.useEvents {
			return
		}
		var ev event
		if _, err = json.Parse(rl.Payload, &ev, p.flags); err == nil {
			p.event(ev, t, n)
		}
	case "turn_context":
		var tc turnContext
		if _, err = json.Parse(rl.Payload, &tc, p.flags); err == nil && p.st.sess.Project == "" && tc.Cwd != "" {
			p.st.sess.Project = filepath.Clean(tc.Cwd)
		}
	case "compacted":
		// Its replacement_history restates, summarised, what was read where
		// it was first written (§2.6): reading it would say it twice.
	}
	if err != nil {
		p.warn.Add("with an unreadable "+rl.Type, n)
	}
}

// meta starts the session; a second session_meta (a resume appending to
// its rollout) keeps the first's ID and start.
func (p *parser) meta(m meta) {
	if p.started {
		return
	}
	p.started = true
	p.st.id = m.ID
	p.st.sess.ID = SessionID(m.ID)
	p.st.sess.Started = harness.ParseTime(m.Timestamp)
	if m.Cwd != "" {
		p.st.sess.Project = filepath.Clean(m.Cwd)
	}
	if m.ForkedFromID != "" {
		p.st.sess.Parent = SessionID(m.ForkedFromID)
	}
	sub, parent := source(m.Source)
	p.st.sess.Subagent = sub
	if parent != "" {
		p.st.sess.Parent = SessionID(parent)
	}
}

// source reads session_meta's source: "cli", "vscode", "exec", "mcp", or
// {"subagent": …} (§2.3, §2.6). exec runs and subagents are subagent
// sessions; a parent thread id, where the source names one, links them.
func source(raw json.RawMessage) (subagent bool, parent string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false, ""
	}
	if raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return s == "exec", ""
	}
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return false, ""
	}
	_, sub := v["subagent"]
	return sub, findString(v, "parent_thread_id")
}

// findString returns the first string value of key anywhere in v.
func findString(v any, key string) string {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x[key].(string); ok {
			return s
		}
		for _, y := range x {
			if s := findString(y, key); s != "" {
				return s
			}
		}
	case []any:
		for _, y := range x {
			if s := findString(y, key); s != "" {
				return s
			}
		}
	}
	return ""
}

// item reads a response item: its messages when they are the stream read,
// and its tool calls always.
func (p *parser) item(it item, t time.Time, n int) {
	switch it.Type {
	case "message":
		if p.useEvents {
			return
		}
		text := itemText(it.Content)
		switch it.Role {
		case "user":
			if p.st.sess.Project == "" {
				if cwd := envCwd(text); cwd != "" {
					p.st.sess.Project = cwd
				}
			}
			if text == "" || injectedContext(text) {
				return
			}
			p.addUser(text, t, n)
		case "assistant":
			p.addAssistant(text, t, n)
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		recs := toolRecords(it, p.st.sess.Project)
		if len(recs) > 0 && it.CallID != "" {
			if p.st.pending == nil {
				p.st.pending = map[string]callRecords{}
			}
			p.st.pending[it.CallID] = callRecords{p.st.handed + len(p.st.sess.Records), len(recs)}
		}
		for _, r := range recs {
			r.Turn, r.Line = p.st.turn, n
			p.st.sess.Records = append(p.st.sess.Records, r)
		}
	}
}

// event reads the user_message and agent_message events, the stream read
// for messages when the rollout has it.
func (p *parser) event(ev event, t time.Time, n int) {
	text := strings.TrimSpace(ev.Message)
	switch ev.Type {
	case "user_message":
		// Review mode writes its request twice, at the same instant
		// (corpus: 0h-n0 rollout 2025-12-25T22-45-23, lines 1337–1338).
		if text != "" && !p.repeatsLastUser(text, t) {
			p.addUser(text, t, n)
		}
	case "agent_message":
		p.addAssistant(text, t, n)
	}
}

func (p *parser) repeatsLastUser(text string, t time.Time) bool {
	ms := p.st.sess.Messages
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Role == harness.User {
			return ms[i].Text == text && ms[i].Time.Equal(t) && i == len(ms)-1
		}
	}
	return false
}

func (p *parser) addUser(text string, t time.Time, n int) {
	p.st.turn++
	p.st.sess.Messages = append(p.st.sess.Messages, harness.Message{Role: harness.User, Text: text, Turn: p.st.turn, Line: n, Time: t})
}

func (p *parser) addAssistant(text string, t time.Time, n int) {
	if text == "" {
		return
	}
	p.st.sess.Messages = append(p.st.sess.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: p.st.turn, Line: n, Time: t})
}

// itemText joins a message's text parts; content that is neither an array
// of parts nor a string reads as no text.
func itemText(content json.RawMessage) string {
	content = bytes.TrimSpace(content)
	if len(content) > 0 && content[0] == '"' {
		var s string
		json.Unmarshal(content, &s)
		return strings.TrimSpace(s)
	}
	var parts []part
	json.Unmarshal(content, &parts)
	var out []string
	for _, c := range parts {
		switch c.Type {
		case "input_text", "output_text", "text":
			if s := strings.TrimSpace(c.Text); s != "" {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// injectedContext reports user-role text Codex wrote into the
// conversation: AGENTS.md, the environment, instructions (§2.4).
func injectedContext(s string) bool {
	for _, prefix := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
		"<permissions instructions>", "<collaboration_mode>", "<skills_instructions>", "<turn_aborted>", "<user_shell_command>"} {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// envCwd is the <cwd> of an <environment_context> block: the only place a
// flat rollout, whose metadata has no cwd, names its working directory.
func envCwd(s string) string {
	if !strings.HasPrefix(s, "<environment_context>") {
		return ""
	}
	_, rest, ok := strings.Cut(s, "<cwd>")
	if !ok {
		return ""
	}
	cwd, _, ok := strings.Cut(rest, "</cwd>")
	if !ok || !filepath.IsAbs(strings.TrimSpace(cwd)) {
		return ""
	}
	return filepath.Clean(strings.TrimSpace(cwd))
}

// Finish closes the session, ending at end: named by its session_meta,
// else by the file's name; none when it holds no message and no record,
// unless a piece held some of it.
func (p *parser) Finish(end int64) *harness.History {
	p.hist.Warnings = p.warn.List()
	s, ok := p.close(end)
	if !ok {
		if p.st.sess.ID == "" && (len(s.Messages) > 0 || len(s.Records) > 0) {
			p.hist.Warnings = append(p.hist.Warnings, "no session_meta line and no id in the file name; the rollout is skipped")
		}
		return p.hist
	}
	p.hist.Sessions = []harness.Session{s}
	return p.hist
}

// close is the session as it stands, ending at end, and whether it is
// one: named, and holding a message or a record or a piece held some.
func (p *parser) close(end int64) (harness.Session, bool) {
	s := p.st.sess
	if len(s.Messages) == 0 && len(s.Records) == 0 && !p.st.pieced {
		return s, false
	}
	if s.ID == "" {
		// No metadata line (a torn first line): the file name's id.
		id := fileID(p.opts.Path)
		if id == "" {
			return s, false
		}
		s.ID = SessionID(id)
	}
	s.Ordinal = max(p.opts.FirstOrdinal, 1)
	s.End = end
	return s, true
}

// Piece hands over the turns before the one being read, which no later
// line can add to (messages and records go to the current turn), and
// lets their text go; none until the session is named.
func (p *parser) Piece(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	st := &p.st
	// Items are in turn order: the first of each says whether a turn
	// before the current one is there to hand over.
	finished := (len(st.sess.Messages) > 0 && st.sess.Messages[0].Turn < st.turn) ||
		(len(st.sess.Records) > 0 && st.sess.Records[0].Turn < st.turn)
	if !finished {
		return h
	}
	s, ok := p.close(end)
	if !ok {
		return h
	}
	s.Messages, s.Records = harness.SplitFinished(&st.sess, st.turn)
	st.handed += len(s.Records)
	st.pieced = true
	h.Sessions = []harness.Session{s}
	return h
}
