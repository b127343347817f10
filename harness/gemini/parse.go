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
	return &parser{opts: opts, conv: conversation{index: map[string]int{}}, warn: warnings{}}
}

// Finish returns the history: its session, when it has one, ending at
// end.
func (p *parser) Finish(end int64) *harness.History {
	h := &harness.History{Path: p.opts.Path}
	if s, ok := p.session(p.opts.Offset, end); ok {
		h.Sessions = []harness.Session{s}
	}
	h.Warnings = p.warn.list()
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
	conv  conversation
	warn  warnings
	scan  jsonscan.Scanner
	// begun: a line was read, so a byte order mark is no longer first.
	begun bool
}

// Line replays one line of a JSONL recording: an unterminated last line
// that is not yet whole JSON is the CLI still writing, left for the next
// read.
func (p *parser) Line(l *harness.Lines) bool {
	raw := l.Line
	if !p.begun {
		p.begun = true
		raw = bytes.TrimPrefix(raw, utf8BOM)
	}
	raw = bytes.TrimSpace(raw)
	if l.Partial && !json.Valid(raw) {
		return false
	}
	p.line(raw, l.Number)
	return true
}

// line applies one JSONL line to the conversation.
func (p *parser) line(raw []byte, n int) {
	if len(raw) == 0 {
		return
	}
	l, ok := decodeLine(&p.scan, raw)
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
		p.conv.rewind(l.RewindTo)
	case l.Set:
		if l.Rebuild {
			p.conv.reset()
			for _, m := range l.Messages {
				p.message(m, n)
			}
		}
	case l.Type != "":
		p.message(l.messageRecord, n)
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
				if m, ok := decodeMessage(sc); ok {
					p.message(m, n)
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

// message adds one message record, replacing an earlier one with the same
// id: the CLI re-appends a record whole when it changes (its tool calls
// finished), and the last copy wins.
func (p *parser) message(m messageRecord, n int) {
	switch m.Type {
	case "user", "gemini", "info", "error", "warning":
	default:
		p.warn.add("a record of unknown type "+harness.Quoted(m.Type)+" skipped", n)
		return
	}
	e := entry{id: m.ID, kind: m.Type, line: n, calls: m.ToolCalls}
	e.text = m.Content
	if m.Type == "user" && strings.TrimSpace(m.Display) != "" {
		// displayContent is the prompt as the user typed it, where content
		// holds what was sent (with referenced files inlined).
		e.text = m.Display
	}
	if t, err := time.Parse(time.RFC3339Nano, m.Timestamp); err == nil {
		e.time = t
	}
	p.conv.put(e)
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
