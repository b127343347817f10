package claude

import (
	"bytes"
	"hash/maphash"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// line is the part of a transcript line deja reads. Everything else
// (toolUseResult, usage, snapshots) is skipped by the decoder unread.
type line struct {
	Type        string `json:"type"`
	UUID        string `json:"uuid"`
	SessionID   string `json:"sessionId"`
	Timestamp   string `json:"timestamp"`
	Cwd         string `json:"cwd"`
	IsSidechain bool   `json:"isSidechain"`
	AgentID     string `json:"agentId"`
	// IsMeta marks injected text ("Caveat: The messages below…"),
	// IsCompactSummary the summary written after a compaction, and
	// IsAPIErrorMessage an assistant line Claude Code made up locally
	// (FORMATS.md §1.3).
	IsMeta            bool     `json:"isMeta"`
	IsCompactSummary  bool     `json:"isCompactSummary"`
	IsAPIErrorMessage bool     `json:"isApiErrorMessage"`
	Message           *message `json:"message"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// block is one content block. A tool_result's content is not decoded.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// toolInput holds the inputs that name a file or a command (§1.5), and
// the text an edit replaced or a write wrote.
type toolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Command      string `json:"command"`
	replacement
	Edits   []replacement `json:"edits"`
	Content *string       `json:"content"`
}

// replacement is an Edit's, or one MultiEdit entry's, strings.
type replacement struct {
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

// metadataTypes are line types outside the conversation (§1.2): read
// and left alone without a warning. Any other unknown type is counted.
var metadataTypes = map[string]bool{
	"system": true, "summary": true, "file-history-snapshot": true, "queue-operation": true,
	"progress": true, "attachment": true, "permission-mode": true, "last-prompt": true,
	"custom-title": true, "agent-name": true, "ai-title": true, "pr-link": true,
}

// Parse reads one transcript and returns its session, then one session per
// subagent (sidechain) whose lines it holds, in the order they first
// appear. It never fails: bad lines are skipped and counted in Warnings.
//
// Every session of a transcript starts at the file's first byte, so the
// indexer re-reads a grown transcript whole (see harness.FileReader): a
// resumed session appends to its file (§1.7) and its copied history must
// be seen again to be recognised.
func Parse(data []byte, opts harness.ParseOptions) *harness.History {
	own := fileSessionID(opts.Path)
	if own == "" {
		own = lastSessionID(data)
	}
	p := newParser(opts, own, json.ZeroCopy)
	lines := harness.NewLines(data)
	end := 0
	for lines.Next() {
		if p.Line(lines) {
			end = lines.End()
		}
	}
	return p.Finish(opts.Offset + int64(end))
}

// newParser starts the parse of a transcript whose session id is own ("":
// its file's name), decoding with flags.
func newParser(opts harness.ParseOptions, own string, flags json.ParseFlags) *parser {
	p := &parser{opts: opts, hist: &harness.History{Path: opts.Path}, byKey: map[string]*state{}, seen: map[uuidKey]struct{}{}, flags: flags,
		pending: map[string]call{}}
	p.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	p.own = own
	if p.own == "" {
		// Lines without a sessionId at all: the file's name is the id.
		p.own = strings.TrimSuffix(filepath.Base(opts.Path), ".jsonl")
	}
	return p
}

type parser struct {
	opts harness.ParseOptions
	hist *harness.History
	// own is the transcript's session id: its file name, or the id of its
	// last main-chain line.
	own   string
	order []*state
	byKey map[string]*state
	// parent is the first other session whose lines this transcript
	// copies: the session it was resumed or forked from.
	parent string
	// seen holds a 128-bit hash of each uuid read (see key), a fifth of
	// the memory of the uuids themselves: a 2 GB transcript's 1.3
	// million uuids held 100 MB.
	seen  map[uuidKey]struct{}
	seeds [2]maphash.Seed
	warn  harness.Warnings
	// flags decode each line: ZeroCopy for bytes held whole, none for
	// lines streamed (see Reader.Stream), whose bytes are let go.
	flags json.ParseFlags
	// pending holds the tool_use id of each command or edit record whose
	// tool_result has not come yet (see outcome.go).
	pending map[string]call
}

// uuidKey is a uuid as seen holds it: two hashes of it with seeds of
// their own, so that two uuids share one about once in 2^128 pairs.
type uuidKey [2]uint64

func (p *parser) key(uuid string) uuidKey {
	return uuidKey{maphash.String(p.seeds[0], uuid), maphash.String(p.seeds[1], uuid)}
}

// state is one session being built.
type state struct {
	sess harness.Session
	turn int
	// pieced says an earlier piece held some of the session's turns.
	pieced bool
}

// Line handles one line and reports whether it was consumed (a partial
// last line that is not yet complete JSON is not).
func (p *parser) Line(l *harness.Lines) bool {
	raw := bytes.TrimSpace(l.Line)
	if len(raw) == 0 {
		return true
	}
	// A tool's answer is the largest kind of line (a file read, a command's
	// output) and holds no typed text: the key tool_use_id only occurs in a
	// tool_result block, so such a line is skipped undecoded (and
	// unvalidated, unless it is a last line that may be half written),
	// unless it answers a command or an edit deja made a record of.
	if harness.HasKey(raw, "tool_use_id") && (!l.Partial || json.Valid(raw)) {
		if p.awaited(raw) {
			p.results(raw)
		}
		return true
	}
	var ln line
	if _, err := json.Parse(raw, &ln, p.flags); err != nil {
		if l.Partial {
			return false
		}
		p.warn.Add(json.Problem(err), l.Number)
		return true
	}
	switch {
	case ln.Type == "user" || ln.Type == "assistant":
	case metadataTypes[ln.Type]:
		return true
	default:
		p.warn.Add("of unknown type "+harness.Quoted(ln.Type), l.Number)
		return true
	}
	if ln.Message == nil {
		p.warn.Add("without a message", l.Number)
		return true
	}
	// A uuid seen before is history copied again (a resume that rewrote
	// earlier lines): it is not a second message.
	if ln.UUID != "" {
		k := p.key(ln.UUID)
		if _, ok := p.seen[k]; ok {
			return true
		}
		p.seen[k] = struct{}{}
	}
	if !ln.IsSidechain && ln.SessionID != "" && p.own != "" && ln.SessionID != p.own {
		// History of the session this one was resumed or forked from: it
		// lives in that session's transcript, so it is linked, not
		// duplicated.
		if p.parent == "" {
			p.parent = ln.SessionID
		}
		return true
	}
	st := p.session(ln)
	t := harness.ParseTime(ln.Timestamp)
	if !t.IsZero() && (st.sess.Started.IsZero() || t.Before(st.sess.Started)) {
		st.sess.Started = t
	}
	if st.sess.Project == "" && ln.Cwd != "" {
		st.sess.Project = filepath.Clean(ln.Cwd)
	}
	if ln.Type == "user" {
		p.user(st, ln, l.Number, t)
	} else {
		p.assistant(st, ln, l.Number, t)
	}
	return true
}

// session returns the session a conversational line belongs to: the
// transcript's own, or a subagent's (every line of a sidechain carries
// isSidechain and its agentId, §1.6).
func (p *parser) session(ln line) *state {
	key := ""
	if ln.IsSidechain {
		key = "agent-" + ln.AgentID
		if ln.AgentID == "" {
			key = "sidechain"
		}
	}
	if st, ok := p.byKey[key]; ok {
		return st
	}
	st := &state{turn: -1}
	st.sess.Offset = p.opts.Offset
	p.byKey[key] = st
	p.order = append(p.order, st)
	if key == "" {
		st.sess.ID = SessionID(p.ownOr(ln.SessionID))
		return st
	}
	// A subagent's lines carry the parent's sessionId (§1.6).
	parent := ln.SessionID
	if parent == "" {
		parent = p.own
	}
	st.sess.ID = SessionID(parent) + "-" + key
	st.sess.Parent = SessionID(parent)
	st.sess.Subagent = true
	return st
}

func (p *parser) ownOr(id string) string {
	if p.own != "" {
		return p.own
	}
	return id
}

// user adds the typed text of a user line. Tool results, injected meta
// text, compaction summaries, local command echoes and interrupt markers
// are not typed text (§1.4).
func (p *parser) user(st *state, ln line, n int, t time.Time) {
	if ln.IsMeta || ln.IsCompactSummary {
		return
	}
	text, ok := userText(ln.Message.Content)
	if !ok {
		p.warn.Add("with unreadable content", n)
		return
	}
	if text == "" || injected(text) {
		return
	}
	st.turn++
	st.sess.Messages = append(st.sess.Messages, harness.Message{Role: harness.User, Text: text, Turn: st.turn, Line: n, Time: t})
}

// assistant adds an assistant line's prose and the records of its tool
// calls; thinking blocks are not prose.
func (p *parser) assistant(st *state, ln line, n int, t time.Time) {
	if ln.IsAPIErrorMessage {
		return
	}
	blocks, ok := contentBlocks(ln.Message.Content)
	if !ok {
		p.warn.Add("with unreadable content", n)
		return
	}
	var text []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if s := strings.TrimSpace(b.Text); s != "" {
				text = append(text, s)
			}
		case "tool_use":
			at := len(st.sess.Records)
			st.sess.Records = appendToolRecords(st.sess.Records, b, st.sess.Project)
			for i := at; i < len(st.sess.Records); i++ {
				st.sess.Records[i].Turn, st.sess.Records[i].Line = st.turn, n
			}
			if at < len(st.sess.Records) && b.ID != "" && st.sess.Records[at].Action != harness.Read {
				p.pending[b.ID] = call{st: st, at: at, n: len(st.sess.Records) - at}
			}
		}
	}
	if len(text) > 0 {
		st.sess.Messages = append(st.sess.Messages, harness.Message{Role: harness.Assistant, Text: strings.Join(text, "\n\n"), Turn: st.turn, Line: n, Time: t})
	}
}

// appendToolRecords appends a tool call's records: edits and writes are
// files edited, one record for each replaced span of a MultiEdit, reads
// files read, Bash a command (§1.5). Other tools leave none.
func appendToolRecords(recs []harness.Record, b block, cwd string) []harness.Record {
	var action harness.FileAction
	switch b.Name {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		action = harness.Edited
	case "Read":
		action = harness.Read
	case "Bash":
	default:
		return recs
	}
	var in toolInput
	if json.Unmarshal(b.Input, &in) != nil {
		return recs
	}
	if b.Name == "Bash" {
		if cmd := strings.TrimSpace(in.Command); cmd != "" {
			recs = append(recs, harness.Record{Kind: harness.CommandRecord, Value: cmd})
		}
		return recs
	}
	file := in.FilePath
	if file == "" {
		file = in.NotebookPath
	}
	file = harness.RelPath(cwd, file)
	if file == "" {
		return recs
	}
	r := harness.Record{Kind: harness.FileRecord, Value: file, Action: action}
	switch b.Name {
	case "Edit":
		r.Span = replaced(in.replacement)
	case "Write":
		if in.Content != nil {
			r.Span.New, r.Span.Clipped = harness.ClipSpan(*in.Content)
			r.Span.Whole = true
		}
	case "MultiEdit":
		// One record per replaced span, so no span is lost.
		for _, e := range in.Edits {
			r.Span = replaced(e)
			recs = append(recs, r)
		}
		if len(in.Edits) > 0 {
			return recs
		}
	}
	// A NotebookEdit's input holds the new cell but not the old one: no
	// span.
	return append(recs, r)
}

// replaced is the span of an Edit's or a MultiEdit entry's strings.
func replaced(e replacement) harness.Span {
	var sp harness.Span
	var cutOld, cutNew bool
	sp.Old, cutOld = harness.ClipSpan(e.OldString)
	sp.New, cutNew = harness.ClipSpan(e.NewString)
	sp.Clipped = cutOld || cutNew
	return sp
}

// userText returns a user line's text: the string content, or its text
// blocks joined. A line that carries tool results is a tool's answer, and
// its text blocks (an interrupt marker, an image caption) are not typed.
func userText(content json.RawMessage) (string, bool) {
	content = bytes.TrimSpace(content)
	if len(content) > 0 && content[0] == '"' {
		var s string
		if json.Unmarshal(content, &s) != nil {
			return "", false
		}
		return strings.TrimSpace(s), true
	}
	blocks, ok := contentBlocks(content)
	if !ok {
		return "", false
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			return "", true
		case "text":
			if s := strings.TrimSpace(b.Text); s != "" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n\n"), true
}

func contentBlocks(content json.RawMessage) ([]block, bool) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return nil, true
	}
	if content[0] == '"' {
		var s string
		if json.Unmarshal(content, &s) != nil {
			return nil, false
		}
		return []block{{Type: "text", Text: s}}, true
	}
	var blocks []block
	if json.Unmarshal(content, &blocks) != nil {
		return nil, false
	}
	return blocks, true
}

// injected reports user-line text that Claude Code wrote, not the user:
// local command echoes and caveats (§1.3, §1.4) and interrupt markers.
func injected(s string) bool {
	return strings.HasPrefix(s, "<command-name>") || strings.HasPrefix(s, "<command-message>") ||
		strings.HasPrefix(s, "<local-command-") || strings.HasPrefix(s, "Caveat: ") ||
		strings.HasPrefix(s, "[Request interrupted by user")
}

// Finish closes the sessions: each ends at end, where the parse stopped;
// the own session gets the parent it was resumed from. A transcript with
// no message and no record (a summary-only file, §1.7) has no session;
// a session an earlier piece held is kept, whatever is left of it.
func (p *parser) Finish(end int64) *harness.History {
	p.hist.Sessions = p.close(end, func(st *state) harness.Session {
		return st.sess
	})
	p.hist.Warnings = p.warn.List()
	return p.hist
}

// Piece hands over every session's turns before the one being read, which
// no later line can add to: a line's messages and records go to the
// session's current turn (see user and assistant). Their text is let go
// here; the session keeps its header and the turn being read.
func (p *parser) Piece(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	h.Sessions = p.close(end, func(st *state) harness.Session {
		sess := st.sess
		sess.Messages, sess.Records = harness.SplitFinished(&st.sess, st.turn)
		p.handed(st, len(sess.Records))
		if len(sess.Messages) > 0 || len(sess.Records) > 0 {
			st.pieced = true
		}
		return sess
	})
	kept := h.Sessions[:0]
	for _, s := range h.Sessions {
		if len(s.Messages) > 0 || len(s.Records) > 0 {
			kept = append(kept, s)
		}
	}
	h.Sessions = kept
	return h
}

// close gives, in order, each session with a message or a record, or one
// a piece held, as take makes it, ending at end and numbered from the
// first ordinal; the own session gets the parent it was resumed from.
func (p *parser) close(end int64, take func(*state) harness.Session) []harness.Session {
	ordinal := p.opts.FirstOrdinal
	if ordinal == 0 {
		ordinal = 1
	}
	var out []harness.Session
	for _, st := range p.order {
		if len(st.sess.Messages) == 0 && len(st.sess.Records) == 0 && !st.pieced {
			continue
		}
		st.sess.End = end
		st.sess.Ordinal = ordinal
		ordinal++
		if !st.sess.Subagent && p.parent != "" {
			st.sess.Parent = SessionID(p.parent)
		}
		out = append(out, take(st))
	}
	return out
}
