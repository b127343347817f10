package continuedev

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// item is what deja reads of one history entry (ChatHistoryItem in
// core/index.d.ts): the message, the files put into it, the typed prompt
// and the tool calls. promptLogs (the whole prompt sent, often most of the
// file), reasoning, appliedRules and the tools' definitions are skipped
// unread.
type item struct {
	role       string
	content    text
	toolCallID string
	// calls are the message's toolCalls; states the toolCallStates (or,
	// in builds of November 2024 to July 2025, the one toolCallState),
	// which carry the call with its status and output.
	calls, states []call
	// typed is the prompt as the editor held it, when editorState is a
	// TipTap document (the extensions').
	typed string
	// attached are the files the entry put into the conversation: its
	// context items with a file uri, and the editor's code blocks.
	attached []string
	summary  string
}

// text is a message's content as raw JSON string bodies, unescaped only
// when used: a tool message's content (a file read, a command's output)
// is never needed unless it answers a command.
type text [][]byte

func (t text) String() string {
	parts := make([]string, 0, len(t))
	for _, raw := range t {
		parts = append(parts, jsonscan.Unescape(raw))
	}
	return strings.Join(parts, "\n")
}

// Parse reads one session file, <sessionId>.json, and returns its one
// session, named continue-<sessionId>. opts.Path leads to the
// sessions.json beside it, whose entry gives the start; a parse without
// it reads the bytes alone. It never panics: entries that are not history
// items are skipped and counted, and a file that breaks off (being
// rewritten) keeps the entries before the break.
func Parse(data []byte, opts harness.ParseOptions) *harness.History {
	p := &parser{data: data, h: &harness.History{Path: opts.Path}, turn: -1}
	trim := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	switch {
	case len(trim) == 0:
		return p.h
	case trim[0] != '{':
		p.warn("a file that is not a JSON object")
		p.flushWarnings()
		return p.h
	}
	// The scanner starts past a byte order mark, which it does not skip
	// as space; offsets stay those of data.
	p.base = len(data) - len(trim)
	p.sc.Reset(trim)
	p.read()
	p.finish(opts)
	return p.h
}

type parser struct {
	sc   jsonscan.Scanner
	data []byte
	base int
	h    *harness.History
	sess harness.Session
	// sessionID and workspace are the file's own fields.
	sessionID, workspace string
	turn                 int
	// afterSummary marks the entry after a compaction summary, where cn
	// adds a "continue" prompt of its own.
	afterSummary bool
	// pending are the records of commands whose output a later tool
	// message holds, by call id.
	pending map[string][]int
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

// line returns the 1-based line of scanner offset off, counting forward
// from the last offset asked.
func (p *parser) line(off int) int {
	off = min(max(off+p.base, 0), len(p.data))
	if off < p.lineAt {
		p.lines, p.lineAt = 0, 0
	}
	p.lines += bytes.Count(p.data[p.lineAt:off], []byte{'\n'})
	p.lineAt = off
	return p.lines + 1
}

// read walks the session object: sessionId, workspaceDirectory and the
// history array, in whatever order they come (builds before November
// 2024 wrote history first).
func (p *parser) read() {
	sc := &p.sc
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "sessionId":
			p.sessionID = sc.String()
		case "workspaceDirectory":
			p.workspace = sc.String()
		case "history":
			if sc.Kind() != '[' {
				// The Python server of 2023 wrote history as an object
				// ({timeline, current_index}); Continue itself no longer
				// reads those files.
				p.warn("a history that is not an array (Continue's 2023 session format, which deja does not read)")
				return false
			}
			sc.Array(p.readItem)
		default:
			return false
		}
		return true
	})
	if sc.Err() != nil {
		p.warn("a file whose JSON breaks off or is invalid after its readable entries (being rewritten?)")
	}
}

// readItem reads one history entry and takes what it says. An entry cut
// short by a break in the JSON is not taken.
func (p *parser) readItem() {
	sc := &p.sc
	if sc.Kind() != '{' {
		sc.Skip()
		p.warn("history entries that are not objects")
		return
	}
	start := sc.Pos()
	var it item
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "message":
			p.readMessage(&it)
		case "contextItems":
			p.readContextItems(&it)
		case "editorState":
			p.readEditor(&it)
		case "toolCallStates":
			sc.Array(func() { it.states = append(it.states, p.readState()) })
		case "toolCallState":
			it.states = append(it.states, p.readState())
		case "conversationSummary":
			it.summary = sc.String()
		default:
			return false
		}
		return true
	})
	if sc.Err() != nil {
		return
	}
	p.take(&it, p.line(start))
}

// readMessage reads a ChatMessage: role, content, toolCalls, toolCallId.
func (p *parser) readMessage(it *item) {
	sc := &p.sc
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "role":
			it.role = sc.String()
		case "content":
			it.content = p.readContent()
		case "toolCalls":
			sc.Array(func() {
				if c := p.readCall(); c.name != "" {
					it.calls = append(it.calls, c)
				}
			})
		case "toolCallId":
			it.toolCallID = sc.String()
		default:
			return false
		}
		return true
	})
}

// readContent reads a MessageContent: a string, or an array of parts of
// which the text parts ({type: "text", text}) count; images do not.
func (p *parser) readContent() text {
	sc := &p.sc
	switch sc.Kind() {
	case '"':
		return text{sc.RawString()}
	case '[':
		var t text
		sc.Array(func() {
			var kind string
			var body []byte
			sc.Object(func(key []byte) bool {
				switch string(key) {
				case "type":
					kind = sc.String()
				case "text":
					body = sc.RawString()
				default:
					return false
				}
				return true
			})
			if kind == "text" && len(body) > 0 {
				t = append(t, body)
			}
		})
		return t
	}
	sc.Skip()
	return nil
}

// readContextItems reads the files a context item names: those whose uri
// is {type: "file", value}. A context item's content (the file, a
// snippet, a web page) is not read.
func (p *parser) readContextItems(it *item) {
	sc := &p.sc
	sc.Array(func() {
		sc.Object(func(key []byte) bool {
			if string(key) != "uri" {
				return false
			}
			if f := p.readURI(); f != "" {
				it.attached = append(it.attached, f)
			}
			return true
		})
	})
}

// readURI reads a ContextItemUri and returns its value when its type is
// file.
func (p *parser) readURI() string {
	sc := &p.sc
	var kind, value string
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			kind = sc.String()
		case "value":
			value = sc.String()
		default:
			return false
		}
		return true
	})
	if kind != "file" {
		return ""
	}
	return value
}

// raw returns the bytes of the next value, skipping it.
func (p *parser) raw() []byte {
	sc := &p.sc
	if sc.Kind() == 0 {
		sc.Skip()
		return nil
	}
	start := sc.Pos()
	sc.Skip()
	if sc.Err() != nil {
		return nil
	}
	return p.data[p.base+start : p.base+sc.Pos()]
}

// take adds what one entry says to the session: a prompt opens a turn,
// an answer joins it, tool calls make records, a tool message gives a
// command its output. Thinking and system entries say nothing deja keeps.
func (p *parser) take(it *item, line int) {
	afterSummary := p.afterSummary
	p.afterSummary = false
	s := &p.sess
	switch it.role {
	case "user":
		prompt := it.typed
		if strings.TrimSpace(prompt) == "" {
			prompt = it.content.String()
		}
		// After compacting in the middle of a turn cn carries on by
		// itself with the prompt "continue" (extensions/cli/src/stream/
		// streamChatResponse.ts handleAutoContinuation): not the user's.
		if afterSummary && strings.TrimSpace(prompt) == "continue" && len(it.attached) == 0 {
			return
		}
		// A prompt of images alone has no text: it opens no turn (a turn
		// counts the prompts with text), and its files join the turn
		// before.
		if strings.TrimSpace(prompt) != "" {
			p.turn++
			s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: prompt, Turn: p.turn, Line: line})
		}
		seen := map[string]bool{}
		for _, f := range it.attached {
			if f = filePath(f); f != "" && !seen[f] {
				seen[f] = true
				s.Records = append(s.Records, harness.Record{Kind: harness.FileRecord, Value: f, Action: harness.Added, Turn: p.turn, Line: line})
			}
		}
	case "assistant":
		answer := it.content.String()
		// cn writes a compaction summary as an assistant entry that
		// holds it twice, as content and conversationSummary
		// (extensions/cli/src/compaction.ts); the extensions mark an
		// answer that stays in place (core/util/conversationCompaction.ts).
		if it.summary != "" && strings.TrimSpace(answer) == strings.TrimSpace(it.summary) {
			answer = ""
			p.afterSummary = true
		}
		if answer = withoutThinking(answer); answer != "" {
			s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: answer, Turn: p.turn, Line: line})
		}
		p.calls(it, line)
	case "tool":
		p.answer(it)
	}
}

// calls adds the records of an answer's tool calls: the states where the
// entry has them (they carry status and output), else the message's
// toolCalls.
func (p *parser) calls(it *item, line int) {
	calls := it.states
	if len(calls) == 0 {
		calls = it.calls
	}
	seen := map[string]bool{}
	for _, c := range calls {
		if c.id != "" {
			if seen[c.id] {
				continue
			}
			seen[c.id] = true
		}
		recs := toolRecords(c)
		for i := range recs {
			recs[i].Turn, recs[i].Line = p.turn, line
			if recs[i].Kind == harness.CommandRecord && !c.hasOutput && c.id != "" {
				if p.pending == nil {
					p.pending = map[string][]int{}
				}
				p.pending[c.id] = append(p.pending[c.id], len(p.sess.Records)+i)
			}
		}
		p.sess.Records = append(p.sess.Records, recs...)
	}
}

// answer gives the commands a tool message answers their output, where
// their call's state did not hold it (builds before tool outputs were
// kept in the state). The message says nothing of how the call ended.
func (p *parser) answer(it *item) {
	idx, ok := p.pending[it.toolCallID]
	if !ok {
		return
	}
	delete(p.pending, it.toolCallID)
	out := it.content.String()
	for _, i := range idx {
		r := &p.sess.Records[i]
		r.Outcome = commandOutcome(r.Outcome.Status, out, "")
	}
}

// finish names the session, sets its project, start and span, and makes
// file records relative to the project. A file with no message and no
// record has no session.
func (p *parser) finish(opts harness.ParseOptions) {
	s := &p.sess
	defer p.flushWarnings()
	if len(s.Messages) == 0 && len(s.Records) == 0 {
		return
	}
	// Continue names the file by the session's id and, loading it, takes
	// the id from the name (core/util/history.ts load), which is what cn
	// --fork finds it by. A file named otherwise (exported, renamed) is
	// named by its sessionId, or by its name when it has none.
	sid := strings.TrimSuffix(filepath.Base(opts.Path), ".json")
	if !harness.IsUUID(sid) && validSessionID(p.sessionID) {
		sid = p.sessionID
	}
	if !validSessionID(sid) {
		p.warn("a session whose id is not a UUID or a name of letters, digits, '_' and '-' (name the file <sessionId>.json)")
		return
	}
	s.ID = IDPrefix + sid
	s.Ordinal = max(opts.FirstOrdinal, 1)
	s.Offset, s.End = opts.Offset, opts.Offset+int64(len(p.data))
	s.Project = projectPath(p.workspace)
	s.Started = started(opts.Path, sid)
	for i := range s.Records {
		if r := &s.Records[i]; r.Kind == harness.FileRecord {
			r.Value = harness.RelPath(s.Project, r.Value)
		}
	}
	p.h.Sessions = append(p.h.Sessions, *s)
}

func (p *parser) flushWarnings() {
	var out []string
	for what, n := range p.skipped {
		out = append(out, harness.SkippedLine(n, what))
	}
	sort.Strings(out)
	p.h.Warnings = append(p.h.Warnings, out...)
}

// withoutThinking drops the reasoning some models write at the start of
// an answer inside <think>…</think> (cn keeps it in the content; the
// extensions move it to the entry's reasoning): the answer is what
// follows. An answer that is all reasoning, the tag never closed, is
// none.
func withoutThinking(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "<think>") {
		_, rest, ok := strings.Cut(s, "</think>")
		if !ok {
			return ""
		}
		s = strings.TrimSpace(rest)
	}
	return s
}
