package gemini

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// functionResponse starts a legacy user record that is a tool's result,
// not typed text (VeriGu/QSymb session-2025-09-12T09-36, FORMATS.md §3.2).
const functionResponse = "[Function Response: "

// session returns the session, ending at end: its header, and the
// messages and records the builder holds; ok is false when the data held
// neither a header nor a message.
func (p *parser) session(offset, end int64) (harness.Session, bool) {
	if p.head.SessionID == "" && p.build.entries == 0 {
		return harness.Session{}, false
	}
	s := p.header(offset, end)
	s.Messages, s.Records = p.build.s.Messages, p.build.s.Records
	return s, true
}

// header is the session without its messages and records.
func (p *parser) header(offset, end int64) harness.Session {
	s := harness.Session{
		ID:       IDPrefix + p.head.SessionID,
		Ordinal:  max(p.opts.FirstOrdinal, 1),
		Offset:   offset,
		End:      end,
		Subagent: p.head.Kind == "subagent",
		Project:  p.project(),
		Started:  p.build.started,
	}
	if p.head.SessionID == "" {
		s.ID = IDPrefix + fallbackID(p.opts.Path)
	}
	if parent := parentID(p.opts.Path); parent != "" {
		s.Parent = IDPrefix + parent
		s.Subagent = true
	}
	if t, err := time.Parse(time.RFC3339Nano, p.head.StartTime); err == nil {
		s.Started = t
	}
	return s
}

// project is the directory the chat ran in, from the header's
// projectHash, asked of Options.Project once the header is final.
func (p *parser) project() string {
	if !p.projected && p.opts.Project != nil {
		p.projected, p.dir = true, p.opts.Project(p.head.ProjectHash)
	}
	return p.dir
}

// builder turns the conversation's entries, in order, into a session's
// messages and records.
type builder struct {
	s harness.Session
	// turn is the current turn: -1 before the first prompt.
	turn int
	// seen are the current turn's records.
	seen map[seenKey]bool
	// started is the first entry's time; entries counts them.
	started time.Time
	entries int
}

func newBuilder() builder { return builder{turn: -1, seen: map[seenKey]bool{}} }

// add appends e's message and records; project resolves its paths.
func (b *builder) add(e entry, project string) {
	b.entries++
	if b.started.IsZero() && !e.time.IsZero() {
		b.started = e.time
	}
	switch e.kind {
	case "user":
		if strings.TrimSpace(e.text) == "" || strings.HasPrefix(e.text, functionResponse) {
			return
		}
		b.turn++
		// A record is kept once a turn: those of turns before are not
		// looked at again.
		clear(b.seen)
		b.s.Messages = append(b.s.Messages, harness.Message{Role: harness.User, Text: e.text, Turn: b.turn, Line: e.line, Time: e.time})
	case "gemini":
		if strings.TrimSpace(e.text) != "" {
			b.s.Messages = append(b.s.Messages, harness.Message{Role: harness.Assistant, Text: e.text, Turn: b.turn, Line: e.line, Time: e.time})
		}
		for _, c := range e.calls {
			for _, r := range callRecords(c, project) {
				r.Turn, r.Line = b.turn, e.line
				key := keyOf(r)
				if !b.seen[key] {
					b.seen[key] = true
					b.s.Records = append(b.s.Records, r)
				}
			}
		}
	}
	// info, error and warning records are the CLI's notices ("Request
	// cancelled.", API errors), neither side's words.
}

// seenKey is what makes a record the same as another of its turn: all
// but its line and output. A command run again with the same ending is
// one record; one that failed and then passed is two.
type seenKey struct {
	r    harness.Record
	exit int
}

func keyOf(r harness.Record) seenKey {
	k := seenKey{r: r, exit: -1 << 31}
	if r.Outcome.Exit != nil {
		k.exit = *r.Outcome.Exit
	}
	k.r.Line, k.r.Outcome = 0, harness.Outcome{Status: r.Outcome.Status}
	return k
}

// fallbackID names a session whose header is lost by its file name's
// short id (session-<time>-<first 8 of sessionId>.jsonl), or by the name.
func fallbackID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if i := strings.LastIndexByte(name, '-'); i >= 0 && strings.HasPrefix(name, "session-") {
		name = name[i+1:]
	}
	if name == "" || name == "." || name == string(filepath.Separator) {
		return "unnamed"
	}
	return name
}

// parentID returns the parent session of a subagent chat, which the CLI
// writes to chats/<parentSessionId>/<sessionId>.jsonl; "" for a main chat.
func parentID(path string) string {
	if path == "" {
		return ""
	}
	dir := filepath.Dir(path)
	if filepath.Base(filepath.Dir(dir)) != "chats" {
		return ""
	}
	return filepath.Base(dir)
}
