package qwen

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// record is the part of a chat record deja reads (ChatRecord in
// packages/core/src/services/chatRecordingService.ts). Everything else
// (usageMetadata, toolCallResult, the payloads of telemetry and
// compression records) is skipped by the decoder unread.
type record struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	SessionID   string `json:"sessionId"`
	Timestamp   string `json:"timestamp"`
	Cwd         string `json:"cwd"`
	AgentID     string `json:"agentId"`
	IsSidechain bool   `json:"isSidechain"`
	// ExternalInput says where a subagent's user record came from: a
	// message sent to the agent, or a notification about a task.
	ExternalInput string      `json:"externalInputKind"`
	ForkedFrom    *forkedFrom `json:"forkedFrom"`
	Message       *content    `json:"message"`
	Payload       *payload    `json:"systemPayload"`
}

// forkedFrom marks a record /branch copied from another session.
type forkedFrom struct {
	SessionID string `json:"sessionId"`
}

// content is a Gemini API Content: a role and its parts.
type content struct {
	Parts []part `json:"parts"`
}

// part is one part of a Content. A part with thought set is the model's
// reasoning, not its answer.
type part struct {
	Text         string        `json:"text"`
	Thought      bool          `json:"thought"`
	FunctionCall *functionCall `json:"functionCall"`
}

type functionCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// payload holds the systemPayload fields deja reads: a prompt's text as
// the user wrote it, the files an @-command added, the session that
// spawned this one.
type payload struct {
	DisplayText     string   `json:"displayText"`
	FilesRead       []string `json:"filesRead"`
	ParentSessionID string   `json:"parentSessionId"`
}

// toolArgs holds the arguments that name a file or a command, and the
// text an edit replaced or a write wrote.
type toolArgs struct {
	FilePath     string   `json:"file_path"`
	AbsolutePath string   `json:"absolute_path"`
	Paths        []string `json:"paths"`
	Command      string   `json:"command"`
	OldString    string   `json:"old_string"`
	NewString    string   `json:"new_string"`
	Content      *string  `json:"content"`
}

// referencedFiles opens the part Qwen Code adds after a prompt's text to
// carry the content of the files its @-mentions name.
const referencedFiles = "--- Content from referenced files ---"

// maxCwd bounds a record's cwd: a longer one is no directory.
const maxCwd = 4096

// Parse reads one chat file and returns its session, or a subagent
// transcript and its session, then one session per subagent whose
// sidechain records it holds, in the order they first appear. It never
// fails: bad lines are skipped and counted in Warnings.
//
// Every session of a file starts where data starts, so the indexer reads a
// grown chat again from its first byte (see harness.FileReader).
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
	opts harness.ParseOptions
	// own is the session id of the file: its name's, else its first
	// record's; agent is the agentId of a subagent transcript's name.
	own, agent string
	order      []*state
	byKey      map[string]*state
	// parent is the session the own session was forked from or spawned by.
	parent string
	warn   harness.Warnings
	// flags decode each line: ZeroCopy for bytes held whole, none for
	// lines streamed, whose bytes are let go.
	flags json.ParseFlags
	// pending holds the id of each command or edit call whose tool_result
	// has not come yet (see outcome.go).
	pending map[string]call
}

// state is one session being built.
type state struct {
	sess harness.Session
	turn int
	// added are files an @-command put into the conversation, waiting for
	// the prompt they belong to: the next one, unless an answer comes
	// first (see flushAdded).
	added []harness.Record
	// pieced says an earlier piece held some of the session's turns.
	pieced bool
}

func newParser(opts harness.ParseOptions, flags json.ParseFlags) *parser {
	p := &parser{opts: opts, byKey: map[string]*state{}, flags: flags, pending: map[string]call{}}
	p.own, p.agent = fileIDs(opts.Path)
	return p
}

// fileIDs reads the ids a chat file's place gives: chats/<sessionId>.jsonl
// for a session, subagents/<sessionId>/agent-<agentId>.jsonl for a
// subagent's transcript.
func fileIDs(path string) (session, agent string) {
	if path == "" {
		return "", ""
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if harness.IsUUID(stem) {
		return stem, ""
	}
	dir := filepath.Dir(path)
	if id, ok := strings.CutPrefix(stem, "agent-"); ok && harness.IsToken(id) && filepath.Base(filepath.Dir(dir)) == "subagents" && harness.IsUUID(filepath.Base(dir)) {
		return filepath.Base(dir), id
	}
	return "", ""
}

// Line handles one line and reports whether it was consumed (a partial
// last line that is not yet complete JSON is not).
func (p *parser) Line(l *harness.Lines) bool {
	raw := bytes.TrimSpace(l.Line)
	if len(raw) == 0 {
		return true
	}
	// A tool's result is the largest kind of record (a file read, a
	// command's output) and holds no words of either side: a
	// functionResponse beside a toolCallResult occurs only in one, so it
	// is skipped undecoded (unless it is a last line still being written),
	// unless it answers a command or an edit deja made a record of.
	if harness.HasKey(raw, "functionResponse") && harness.HasKey(raw, "toolCallResult") && (!l.Partial || json.Valid(raw)) {
		if p.awaited(raw) {
			p.result(raw)
		}
		return true
	}
	// A telemetry record (one per model call, about half of what is left)
	// says nothing deja keeps: its payload's uiEvent key marks it.
	if harness.HasKey(raw, "uiEvent") && (!l.Partial || json.Valid(raw)) {
		return true
	}
	var r record
	if _, err := json.Parse(raw, &r, p.flags); err != nil {
		if l.Partial {
			return false
		}
		p.warn.Add(json.Problem(err), l.Number)
		return true
	}
	switch r.Type {
	case "user", "assistant", "system":
	case "tool_result":
		return true
	default:
		p.warn.Add("of unknown type "+harness.Quoted(r.Type), l.Number)
		return true
	}
	if p.own == "" && harness.IsUUID(r.SessionID) {
		p.own = r.SessionID
	}
	if r.ForkedFrom != nil {
		// History /branch copied from the session it forked: it lives in
		// that session's file, so it is linked, not read twice.
		if p.parent == "" {
			p.parent = r.ForkedFrom.SessionID
		}
		return true
	}
	st := p.session(r)
	t := harness.ParseTime(r.Timestamp)
	if !t.IsZero() && (st.sess.Started.IsZero() || t.Before(st.sess.Started)) {
		st.sess.Started = t
	}
	if st.sess.Project == "" && r.Cwd != "" && len(r.Cwd) <= maxCwd {
		st.sess.Project = filepath.Clean(r.Cwd)
	}
	switch r.Type {
	case "user":
		p.user(st, r, l.Number, t)
	case "assistant":
		p.assistant(st, r, l.Number, t)
	case "system":
		p.system(st, r, l.Number)
	}
	return true
}

// session returns the session a record belongs to: the file's own, or a
// subagent's. A subagent transcript's records are all its agent's; in a
// chat file, a record marked isSidechain is the agentId's.
func (p *parser) session(r record) *state {
	agent := p.agent
	if agent == "" && r.IsSidechain {
		agent = fileComponent(r.AgentID)
	}
	key := ""
	if agent != "" {
		key = "agent-" + agent
	}
	if st, ok := p.byKey[key]; ok {
		return st
	}
	st := &state{turn: -1}
	st.sess.Offset = p.opts.Offset
	p.byKey[key] = st
	p.order = append(p.order, st)
	own := p.own
	if own == "" {
		own = r.SessionID
	}
	st.sess.ID = IDPrefix + own
	if key != "" {
		st.sess.ID += "-" + key
		st.sess.Parent = IDPrefix + own
		st.sess.Subagent = true
	}
	return st
}

// fileComponent writes an agentId as the CLI does in a transcript's file
// name (sanitizeFilenameComponent): every byte outside letters, digits,
// '_' and '-' becomes '_'; it keeps the first 64 bytes, the most an ID's
// part holds (harness.IsToken). An empty one names no agent.
func fileComponent(id string) string {
	if id == "" {
		return "sidechain"
	}
	b := []byte(id[:min(len(id), 64)])
	for i, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// user adds a prompt: a user record without a subtype (the prompt as
// submitted), a message typed while tools ran (mid_turn_user_message), or
// a spoken one (realtime_message). Notifications, cron prompts and goal
// runtime messages are the CLI's, not the user's, and so is a
// notification handed to a subagent.
func (p *parser) user(st *state, r record, n int, t time.Time) {
	switch r.Subtype {
	case "", "mid_turn_user_message", "realtime_message":
	default:
		return
	}
	if r.ExternalInput == "notification" {
		return
	}
	text := ""
	if r.Payload != nil {
		text = strings.TrimSpace(r.Payload.DisplayText)
	}
	if text == "" && r.Message != nil {
		text = promptText(r.Message.Parts)
	}
	if text == "" {
		return
	}
	st.turn++
	st.sess.Messages = append(st.sess.Messages, harness.Message{Role: harness.User, Text: text, Turn: st.turn, Line: n, Time: t})
	p.flushAdded(st)
}

// promptText joins a prompt's text parts up to the files an @-mention
// added after them.
func promptText(parts []part) string {
	var text []string
	for _, pt := range parts {
		if pt.Thought {
			continue
		}
		s := strings.TrimSpace(pt.Text)
		if before, _, found := strings.Cut(s, referencedFiles); found {
			if s = strings.TrimSpace(before); s != "" {
				text = append(text, s)
			}
			break
		}
		if s != "" {
			text = append(text, s)
		}
	}
	return strings.Join(text, "\n")
}

// assistant adds an assistant record's answer and the records of its
// tool calls; thought parts are the model's reasoning, not its answer.
func (p *parser) assistant(st *state, r record, n int, t time.Time) {
	p.flushAdded(st)
	if r.Message == nil {
		return
	}
	var text []string
	for _, pt := range r.Message.Parts {
		if pt.FunctionCall != nil {
			at := len(st.sess.Records)
			for _, rec := range toolRecords(*pt.FunctionCall, st.sess.Project) {
				rec.Turn, rec.Line = st.turn, n
				st.sess.Records = append(st.sess.Records, rec)
			}
			if id := pt.FunctionCall.ID; id != "" && at < len(st.sess.Records) && st.sess.Records[at].Action != harness.Read {
				p.pending[id] = call{st: st, at: at, n: len(st.sess.Records) - at}
			}
			continue
		}
		if s := strings.TrimSpace(pt.Text); s != "" && !pt.Thought {
			text = append(text, s)
		}
	}
	if len(text) > 0 {
		st.sess.Messages = append(st.sess.Messages, harness.Message{Role: harness.Assistant, Text: strings.Join(text, "\n\n"), Turn: st.turn, Line: n, Time: t})
	}
}

// system reads the two system records that say something deja keeps: the
// files an @-command added, and the session that spawned this one. The
// rest (telemetry, slash commands, compression checkpoints, titles) are
// the CLI's bookkeeping.
func (p *parser) system(st *state, r record, n int) {
	if r.Payload == nil {
		return
	}
	switch r.Subtype {
	case "at_command":
		for _, f := range r.Payload.FilesRead {
			if f = harness.RelPath(st.sess.Project, f); f != "" {
				st.added = append(st.added, harness.Record{Kind: harness.FileRecord, Value: f, Action: harness.Added, Line: n})
			}
		}
	case "parent_session":
		if p.parent == "" && !st.sess.Subagent {
			p.parent = r.Payload.ParentSessionID
		}
	}
}

// flushAdded gives the files an @-command added to the session's current
// turn: the prompt just read, or, when an answer comes first, the prompt
// before it.
func (p *parser) flushAdded(st *state) {
	for _, rec := range st.added {
		rec.Turn = st.turn
		st.sess.Records = append(st.sess.Records, rec)
	}
	st.added = nil
}

// toolRecords turns a tool call into records (packages/core/src/tools/
// tool-names.ts): edit (replace before 0.1) and write_file are files
// edited, read_file and read_many_files files read, run_shell_command a
// command. Other tools leave none.
func toolRecords(c functionCall, cwd string) []harness.Record {
	var action harness.FileAction
	switch c.Name {
	case "edit", "replace", "write_file":
		action = harness.Edited
	case "read_file", "read_many_files":
		action = harness.Read
	case "run_shell_command":
	default:
		return nil
	}
	var args toolArgs
	if json.Unmarshal(c.Args, &args) != nil {
		return nil
	}
	if c.Name == "run_shell_command" {
		if cmd := strings.TrimSpace(args.Command); cmd != "" {
			return []harness.Record{{Kind: harness.CommandRecord, Value: cmd}}
		}
		return nil
	}
	var span harness.Span
	switch c.Name {
	case "write_file":
		if args.Content != nil {
			span.New, span.Clipped = harness.ClipSpan(*args.Content)
			span.Whole = true
		}
	case "edit", "replace":
		var cutOld, cutNew bool
		span.Old, cutOld = harness.ClipSpan(args.OldString)
		span.New, cutNew = harness.ClipSpan(args.NewString)
		span.Clipped = cutOld || cutNew
	}
	files := args.Paths
	if f := args.FilePath; f != "" {
		files = []string{f}
	} else if f := args.AbsolutePath; f != "" {
		files = []string{f}
	}
	var out []harness.Record
	for _, f := range files {
		if f = harness.RelPath(cwd, f); f != "" {
			out = append(out, harness.Record{Kind: harness.FileRecord, Value: f, Action: action, Span: span})
		}
	}
	return out
}

// Finish closes the sessions: each ends at end, where the parse stopped.
// A file with no message and no record has no session; a session an
// earlier piece held is kept, whatever is left of it.
func (p *parser) Finish(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	for _, st := range p.order {
		p.flushAdded(st)
	}
	h.Sessions = p.close(end, func(st *state) harness.Session { return st.sess })
	h.Warnings = p.warn.List()
	return h
}

// Piece hands over every session's turns before the one being read, which
// no later line can add to: a record's messages and records go to the
// session's current turn.
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

// close gives, in order, each session with a message or a record, or one
// a piece held, as take makes it, ending at end and numbered from the
// first ordinal; the own session gets the session it came from.
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
		if !st.sess.Subagent && p.parent != "" {
			st.sess.Parent = IDPrefix + p.parent
		}
		out = append(out, take(st))
	}
	return out
}
