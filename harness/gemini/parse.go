package gemini

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/internal/jsonscan"

	"github.com/deja-dev/deja/harness"
)

var utf8BOM = []byte("\xEF\xBB\xBF")

// Options tune Parse.
type Options struct {
	// Path is the recording's path. Its extension tells the legacy .json
	// file from the JSONL one, a subagent chat's directory names its parent
	// (chats/<parentSessionId>/<sessionId>.jsonl), and its name names a
	// session whose header is lost. It is never part of a session's ID.
	Path string
	// Offset is where data starts in the file; session offsets are
	// absolute. A recording holds one session, so the indexer re-reads it
	// from 0.
	Offset int64
	// FirstOrdinal is the ordinal of the session; 0 means 1.
	FirstOrdinal int
	// Project returns the directory the chat ran in, given the header's
	// projectHash (the SHA-256 of that directory); nil, or "", leaves the
	// project unknown and file paths as written. See ProjectResolver.
	Project func(projectHash string) string
}

// IDPrefix starts every Gemini CLI session's ID: gemini-<sessionId>.
const IDPrefix = "gemini-"

// Parse reads one Gemini CLI chat recording, JSONL or legacy single JSON,
// and returns its session. It never fails and never panics: invalid lines,
// unknown record types and a truncated file are skipped and counted in
// Warnings.
func Parse(data []byte, opts Options) *harness.History {
	if isLegacy(data, opts.Path) {
		p := newParser(opts)
		p.readLegacy(data)
		return p.Finish(opts.Offset + int64(len(data)))
	}
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

func newParser(opts Options) *parser {
	return &parser{opts: opts, whole: &conversation[entry]{}, build: newBuilder()}
}

// add hands e to the builder.
func (p *parser) add(e entry) { p.build.add(e, p.project()) }

// Finish returns the history: its session, when it has one, ending at
// end.
func (p *parser) Finish(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	switch {
	case p.whole != nil:
		for _, e := range p.whole.entries {
			p.add(e)
		}
		p.whole = nil
	case p.fin != nil:
		p.fin.drain(p)
	}
	if s, ok := p.session(p.opts.Offset, end); ok {
		if p.head.SessionID == "" {
			p.warn.add("no session header: the session is named from the file name", 1)
		}
		h.Sessions = []harness.Session{s}
	}
	h.Warnings = p.warn.list()
	return h
}

// Piece hands over the turns of a parse that knows the final
// conversation (a Prescan's) before the one being read; a parse that
// does not knows no turn final before the end, and hands over none.
func (p *parser) Piece(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	if p.fin == nil {
		return h
	}
	s := p.header(p.opts.Offset, end)
	s.Messages, s.Records = harness.SplitFinished(&p.build.s, p.build.turn)
	if len(s.Messages) > 0 || len(s.Records) > 0 {
		h.Sessions = []harness.Session{s}
	}
	return h
}

// isLegacy reports whether data is the single pretty-printed JSON object
// Gemini CLI wrote before the JSONL recording (FORMATS.md §3.2): by the
// extension, or, for a file without one, by a first line that is not a
// whole JSON object.
func isLegacy(data []byte, path string) bool {
	switch filepath.Ext(path) {
	case ".json":
		return true
	case ".jsonl":
		return false
	}
	first, _, _ := bytes.Cut(bytes.TrimLeft(data, " \t\r\n"), []byte("\n"))
	return len(first) > 0 && !json.Valid(first)
}

type parser struct {
	opts  Options
	head  header
	heads int
	// One of three is set: whole, the conversation held until the end;
	// skel, a Prescan's, where each record's last copy lies; fin, a
	// parse that knows the final conversation from a Prescan.
	whole *conversation[entry]
	skel  *conversation[ref]
	fin   *final
	build builder
	warn  warnings
	scan  jsonscan.Scanner
	// begun: a line was read, so a byte order mark is no longer first;
	// base is the number of the line before it.
	begun bool
	base  int
	// dir is the project, once asked (projected).
	dir       string
	projected bool
}

// Line replays one line of a JSONL recording: an unterminated last line
// that is not yet whole JSON is the CLI still writing, left for the next
// read, and so is any line past those a Prescan read.
func (p *parser) Line(l *harness.Lines) bool {
	raw := l.Line
	if !p.begun {
		p.begun, p.base = true, l.Number-1
		raw = bytes.TrimPrefix(raw, utf8BOM)
	}
	at := l.Number - p.base
	if p.fin != nil && at > p.fin.lines {
		return false
	}
	raw = bytes.TrimSpace(raw)
	if l.Partial && !json.Valid(raw) {
		return false
	}
	p.line(raw, l.Number, at)
	if p.fin != nil {
		p.fin.passed(p)
	}
	return true
}

// line applies one JSONL line, the nth of the file and the at-th read, to
// the conversation.
func (p *parser) line(raw []byte, n, at int) {
	if len(raw) == 0 {
		return
	}
	l, ok := decodeLine(&p.scan, raw, p.skel != nil)
	if !ok {
		p.warn.add("invalid JSON skipped", n)
		return
	}
	switch {
	case l.SessionID != "" && l.Type == "":
		p.heads++
		if p.heads > 1 {
			p.warn.add("a second session header skipped", n)
			return
		}
		p.head = l.header
	case l.Rewind:
		switch {
		case p.whole != nil:
			p.whole.rewind(l.RewindTo)
		case p.skel != nil:
			p.skel.rewind(l.RewindTo)
		}
	case l.Set:
		if l.Rebuild {
			switch {
			case p.whole != nil:
				p.whole.reset()
			case p.skel != nil:
				p.skel.reset()
			}
			for i, m := range l.Messages {
				p.message(m, n, ref{at, i})
			}
		}
	case l.Type != "":
		p.message(l.messageRecord, n, ref{at, 0})
	default:
		p.warn.add("a line of unknown shape skipped", n)
	}
}

// readLegacy reads the single JSON object. Each message keeps the line it
// starts on, and a file cut short (the CLI rewrote it whole on every
// message) keeps the messages before the cut.
func (p *parser) readLegacy(data []byte) {
	data = bytes.TrimPrefix(data, utf8BOM)
	sc := &p.scan
	sc.Reset(data)
	if sc.Kind() != '{' {
		p.warn.add("the file is not a JSON object; nothing read", 1)
		return
	}
	lines := lineCounter{data: data, line: 1}
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "sessionId":
			p.head.SessionID = sc.String()
		case "projectHash":
			p.head.ProjectHash = sc.String()
		case "startTime":
			p.head.StartTime = sc.String()
		case "kind":
			p.head.Kind = sc.String()
		case "messages":
			sc.Array(func() {
				sc.Kind()
				n := lines.at(sc.Pos())
				if m, ok := decodeMessage(sc, false); ok {
					p.message(m, n, ref{})
				}
			})
		default:
			return false
		}
		return true
	})
	if !ok || !sc.End() {
		p.warn.add("the file is cut short or damaged here; the rest skipped", lines.at(sc.Pos()))
	}
}

// message adds one message record, the nth line's, found where at says,
// replacing an earlier one with the same id: the CLI re-appends a record
// whole when it changes (its tool calls finished), and the last copy
// wins.
func (p *parser) message(m messageRecord, n int, at ref) {
	switch m.Type {
	case "user", "gemini", "info", "error", "warning":
	default:
		p.warn.add("a record of unknown type "+harness.Quoted(m.Type)+" skipped", n)
		return
	}
	if p.skel != nil {
		p.skel.put(m.ID, at)
		return
	}
	e := entry{kind: m.Type, line: n, calls: m.ToolCalls}
	e.text = m.Content
	if m.Type == "user" && strings.TrimSpace(m.Display) != "" {
		// displayContent is the prompt as the user typed it, where content
		// holds what was sent (with referenced files inlined).
		e.text = m.Display
	}
	if t, err := time.Parse(time.RFC3339Nano, m.Timestamp); err == nil {
		e.time = t
	}
	if p.whole != nil {
		p.whole.put(m.ID, e)
		return
	}
	p.fin.take(p, at, e, n)
}

// lineCounter turns increasing byte offsets into 1-based line numbers of
// the first token at or after them.
type lineCounter struct {
	data []byte
	pos  int
	line int
}

func (c *lineCounter) at(o int) int {
	if o < c.pos || o > len(c.data) {
		return c.line
	}
	c.line += bytes.Count(c.data[c.pos:o], []byte("\n"))
	c.pos = o
	return c.line
}
