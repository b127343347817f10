package aider

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/deja-dev/deja/harness"
)

// Options tune Parse. They are the harness seam's options: Path names the
// sessions (see SessionID) and file records under its directory are made
// relative; Reserved IDs get the next free -N suffix.
type Options = harness.ParseOptions

// headerPrefix starts every session (io.py: InputOutput.__init__).
const headerPrefix = "# aider chat started at"

// headerLayout is the header's local time, datetime.now() with no zone.
const headerLayout = "2006-01-02 15:04:05"

var (
	header = []byte(headerPrefix)
	// headerAfterNewline finds the next session's header.
	headerAfterNewline = []byte("\n" + headerPrefix)
	userPrefix         = []byte("#### ")
	toolPrefix         = []byte("> ")
	hardBreak          = []byte("  ")
	utf8BOM            = []byte("\xEF\xBB\xBF")

	// processingRequest is what --watch-files writes before it sends an
	// "AI!" comment to the model with no #### line: the reply that follows
	// is an assistant message although no user line came first.
	processingRequest = []byte("Processing your request...")
)

// state is where the parser stands between lines.
type state int

const (
	// inText: assistant text, where #### and > lines are recognised.
	inText state = iota
	// inFence: inside a code fence of assistant text; lines are content.
	inFence
	// inReasoning: inside a <thinking-content-…> or <think> block, which is
	// not part of the assistant's message.
	inReasoning
	// inToolOutput: the unprefixed rest of a multi-line tool write, which
	// aider ends with two spaces (or, in a stripped file, a blank line).
	inToolOutput
)

// Parse reads one aider history and returns its sessions in file order.
// It never fails: damage is handled line by line and noted in Warnings.
func Parse(data []byte, opts Options) *History {
	p := newParser(data, opts)
	p.run()
	return p.hist
}

type parser struct {
	opts       Options
	data       []byte
	hist       *History
	stripped   bool
	pathHash   string
	historyDir string
	loc        *time.Location

	st         state
	fenceChar  byte   // '`', '~' or '<' for the tag fences
	fenceLen   int    // length of the opening backtick or tilde run
	closer     []byte // closing tag of a tag fence or reasoning block
	line       int    // 1-based number of the current line
	lineOffset int64  // absolute offset of the current line
	// ahead is what follows the current line: the rest of data when it
	// is held whole, the next line when it is streamed; nil at the end.
	ahead     []byte
	prevBlank bool // the line before the current one was empty

	sess    *Session // the session being read; nil before any
	leading bool     // sess is the headerless text before the first header
	ordinal int
	ids     map[string]bool
	// suffix is the next -N to try for a base ID, so that thousands of
	// launches in one second stay linear.
	suffix map[string]int

	// The user block being read: consecutive #### lines.
	userLines [][]byte
	userLine  int

	// The assistant message being read.
	asst        []byte
	asstLine    int
	asstStarted bool
	// afterUserLine: a #### line has been seen in this session; before
	// it, unprefixed text is banner, dump or preamble, not a message.
	afterUserLine bool
	watchReply    bool
	turn          int
	lastAssistant string
	// blocks are lastAssistant's SEARCH/REPLACE blocks, found when an
	// "Applied edit to" line first asks (blocksRead).
	blocks     []editBlock
	blocksRead bool
	// cmd is the command run by the user block just read, until aider's
	// next message: what aider writes of how it ended (outcome.go).
	cmd ranCommand

	invalidUTF8, nulBytes bool

	// A history streamed (see stream.go): starts counts the sessions
	// started, handed how many of hist.Sessions a piece has emptied, and
	// handedMessages says a piece took messages of the session being read.
	streamed       bool
	starts         int
	handed         int
	handedMessages bool
}

func newParser(data []byte, opts Options) *parser {
	loc := opts.Location
	if loc == nil {
		loc = time.Local
	}
	p := &parser{
		opts:     opts,
		data:     data,
		hist:     &History{Path: opts.Path},
		pathHash: PathHash(opts.Path),
		loc:      loc,
		ordinal:  opts.FirstOrdinal - 1,
		ids:      map[string]bool{},
		suffix:   map[string]int{},
		asst:     make([]byte, 0, 4096),
	}
	if p.ordinal < 0 {
		p.ordinal = 0
	}
	if opts.Path != "" {
		p.historyDir = filepath.ToSlash(filepath.Dir(opts.Path))
	}
	return p
}

func (p *parser) run() {
	data := p.data
	pos := 0
	if p.opts.Offset == 0 && bytes.HasPrefix(data, utf8BOM) {
		pos = len(utf8BOM)
	}
	p.startSession(nil, p.opts.Offset+int64(pos), true)
	for pos < len(data) {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end < 0 {
			end = len(data)
		} else {
			end += pos
			next = end + 1
		}
		line := data[pos:end]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		p.line++
		p.lineOffset = p.opts.Offset + int64(pos)
		p.ahead = nil
		if next < len(data) {
			p.ahead = data[next:]
		}
		p.step(line)
		p.prevBlank = len(line) == 0
		pos = next
	}
	p.endSession(p.opts.Offset + int64(len(data)))
	p.finish()
}

// finish notes what the whole history's parse found.
func (p *parser) finish() {
	if p.invalidUTF8 {
		p.warn("invalid UTF-8 replaced with U+FFFD")
	}
	if p.nulBytes {
		p.warn("NUL bytes removed")
	}
	if p.hist.Stripped {
		p.warn("trailing whitespace was stripped from this file: message boundaries are inferred")
	}
}

func (p *parser) warn(msg string) {
	p.hist.Warnings = append(p.hist.Warnings, msg)
}

// step reads one line, without its line ending.
func (p *parser) step(line []byte) {
	if bytes.HasPrefix(line, header) {
		p.endSession(p.lineOffset)
		p.startSession(line, p.lineOffset, false)
		return
	}
	switch p.st {
	case inToolOutput:
		p.toolContinues(line)
		if !p.stripped {
			// An assistant blockquote is indistinguishable from the start
			// of a multi-line tool write; a user line after a blank line
			// is where aider's next write would begin, so take it.
			if p.prevBlank && isUserLine(line) && bytes.HasSuffix(line, hardBreak) {
				p.st = inText
				break
			}
			if p.endsWrite(line) {
				p.st = inText
			}
			return
		}
		// A stripped file cannot show where the write ended: take the
		// next blank or prefixed line.
		if len(line) != 0 && !isUserLine(line) && !isToolLine(line) {
			return
		}
		p.st = inText
	case inFence, inReasoning:
		if p.endsWriteEarly(line) {
			// A reply cut off by ^C leaves its fence open; aider's own
			// next write ends it.
			p.st = inText
			break
		}
		if p.st == inFence {
			p.addAssistant(line)
			if p.closesFence(line) {
				p.st = inText
			}
			return
		}
		if i := bytes.Index(line, p.closer); i >= 0 {
			p.st = inText
			if rest := bytes.TrimSpace(line[i+len(p.closer):]); len(rest) > 0 {
				p.addAssistant(rest)
			}
		}
		return
	}
	p.text(line)
}

// endsWriteEarly reports a #### or > line ending in two spaces: aider's own
// write, which no open fence of a finished reply can contain.
func (p *parser) endsWriteEarly(line []byte) bool {
	return !p.stripped && bytes.HasSuffix(line, hardBreak) && (bytes.HasPrefix(line, userPrefix) || bytes.HasPrefix(line, toolPrefix))
}

// endsWrite reports the last line of one of aider's writes: the writer
// strips the text and appends two spaces, so the line ends in a non-space
// and exactly two spaces, and aider's next write starts on a blank line
// (user input, assistant text, a header) or with "> " (tool output). A
// padded line of a shell-command subject or a blank docstring line in
// pytest output ends in spaces too, but fails one of the two tests.
func (p *parser) endsWrite(line []byte) bool {
	n := len(line)
	if n < 3 || line[n-1] != ' ' || line[n-2] != ' ' || line[n-3] == ' ' {
		return false
	}
	if p.ahead == nil {
		return true
	}
	if len(p.ahead) == 0 {
		// A streamed line that is empty: a blank line.
		return true
	}
	c := p.ahead[0]
	return c == '\n' || c == '\r' || c == '>' || bytes.HasPrefix(p.ahead, header)
}

// text handles a line outside fences, tool output and reasoning.
func (p *parser) text(line []byte) {
	switch {
	case isUserLine(line) && (p.stripped || bytes.HasSuffix(line, hardBreak)):
		p.endAssistant()
		if len(p.userLines) == 0 {
			p.userLine = p.line
		}
		p.userLines = append(p.userLines, p.userText(line))
		p.afterUserLine = true
	case isToolLine(line):
		p.endUser()
		p.endAssistant()
		p.tool(line)
	default:
		p.endUser()
		p.assistantText(line)
	}
}

func isUserLine(line []byte) bool {
	return bytes.HasPrefix(line, userPrefix) || (len(line) == 4 && string(line) == "####")
}

// isToolLine: aider writes "> " or, for an empty message, ">  ". Lines
// that start with ">" but no space (">>>>>>> REPLACE", ">>> ") are content.
// A bare ">" occurs in some 2024-11 files (corpus: __id31250521987).
func isToolLine(line []byte) bool {
	return bytes.HasPrefix(line, toolPrefix) || (len(line) == 1 && line[0] == '>')
}

// userText strips "#### " and the two spaces aider appends to every line.
func (p *parser) userText(line []byte) []byte {
	if len(line) <= len(userPrefix) {
		return nil
	}
	t := line[len(userPrefix):]
	if !p.stripped && bytes.HasSuffix(t, hardBreak) {
		t = t[:len(t)-len(hardBreak)]
	}
	return t
}

func (p *parser) tool(line []byte) {
	if len(line) == 1 {
		return
	}
	// ">  " is an empty tool message, complete by itself.
	complete := string(line) == ">  " || p.endsWrite(line)
	text := bytes.TrimRight(line[len(toolPrefix):], " ")
	if p.stripped || !complete {
		p.st = inToolOutput
	}
	if p.cmd.kind != "" && p.commandOutput(text, complete) {
		return
	}
	if p.failedBlock(text) {
		return
	}
	if r, ok := toolRecord(text); ok {
		written := r.Value
		if r.Kind == FileRecord {
			r.Value = normalizeFile(r.Value, p.historyDir)
		}
		r.Value, r.Turn, r.Line = p.clean(r.Value), p.turn, p.line
		if r.Kind == FileRecord && r.Action == harness.Edited {
			p.applied(r, written)
			return
		}
		p.sess.Records = append(p.sess.Records, r)
		return
	}
	if !p.afterUserLine && bytes.Equal(text, processingRequest) {
		p.watchReply = true
	}
}

func (p *parser) addRecord(kind RecordKind, value string, line int) {
	p.sess.Records = append(p.sess.Records, Record{Kind: kind, Value: value, Turn: p.turn, Line: line})
}

// assistantText adds a line of assistant text, opening fences and
// reasoning blocks as it goes.
func (p *parser) assistantText(line []byte) {
	if open, closer := reasoningOpen(line); open >= 0 {
		if before := bytes.TrimSpace(line[:open]); len(before) > 0 {
			p.addAssistant(before)
		}
		rest := line[open:]
		if i := bytes.Index(rest, closer); i >= 0 {
			if after := bytes.TrimSpace(rest[i+len(closer):]); len(after) > 0 {
				p.addAssistant(after)
			}
			return
		}
		p.st, p.closer = inReasoning, closer
		return
	}
	p.addAssistant(line)
	p.openFence(line)
}

func (p *parser) addAssistant(line []byte) {
	if !p.asstStarted {
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		p.asstStarted = true
		p.asstLine = p.line
	} else {
		p.asst = append(p.asst, '\n')
	}
	p.asst = append(p.asst, line...)
}

// endAssistant closes the assistant message being read, if any.
func (p *parser) endAssistant() {
	if !p.asstStarted {
		return
	}
	text := bytes.TrimSpace(p.asst)
	p.asst = p.asst[:0]
	p.asstStarted = false
	if len(text) == 0 || (!p.afterUserLine && !p.watchReply) {
		return
	}
	s := p.clean(string(text))
	p.lastAssistant = s
	p.blocks, p.blocksRead = nil, false
	p.endCommand()
	p.sess.Messages = append(p.sess.Messages, Message{Role: Assistant, Text: s, Turn: p.turn, Line: p.asstLine})
}

// clean makes text safe to store: valid UTF-8 (aider writes with
// errors="ignore" in the user's --encoding, which need not be UTF-8) and no
// NUL bytes.
func (p *parser) clean(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		p.nulBytes = true
		s = strings.ReplaceAll(s, "\x00", "")
	}
	if !utf8.ValidString(s) {
		p.invalidUTF8 = true
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// endUser classifies the user block being read and keeps it if a person
// typed it as a message.
func (p *parser) endUser() {
	if len(p.userLines) == 0 {
		return
	}
	p.endCommand()
	lines := p.userLines
	p.userLines = p.userLines[:0]
	first := lines[0]
	// An empty submission (Enter alone) is logged as "<blank>".
	if len(lines) == 1 && string(first) == "<blank>" {
		return
	}
	if len(first) > 0 && (first[0] == '/' || first[0] == '!') {
		if p.command(lines) {
			return
		}
	}
	if isConfirmAnswer(lines) {
		return
	}
	if q, ok := helpQuestion(lines); ok {
		lines = [][]byte{q}
	} else if isLintReport(first) {
		return
	}
	text := p.clean(joinLines(lines))
	if len(strings.TrimSpace(text)) == 0 {
		return
	}
	if p.lastAssistant != "" && sameText(text, p.lastAssistant) {
		// Architect mode: the architect's answer is logged again as a ####
		// block for the editor model (architect_coder.py reply_completed).
		return
	}
	p.turn++
	p.lastAssistant = ""
	p.sess.Messages = append(p.sess.Messages, Message{Role: User, Text: text, Turn: p.turn, Line: p.userLine})
}

// startSession begins a session at a header line, or the headerless text
// before the first header (header nil).
func (p *parser) startSession(header []byte, at int64, leading bool) {
	s := &Session{Offset: at}
	p.stripped = p.strippedAt(at)
	if header != nil {
		s.Header = p.clean(string(header))
		rest := strings.TrimSpace(s.Header[len(headerPrefix):])
		if t, err := time.ParseInLocation(headerLayout, rest, p.loc); err == nil {
			s.Started = t
		}
	}
	p.sess, p.leading = s, leading
	p.handedMessages = false
	p.st = inText
	p.turn = -1
	p.afterUserLine, p.watchReply = false, false
	p.lastAssistant = ""
	p.blocks, p.blocksRead = nil, false
	p.cmd = ranCommand{}
}

func (p *parser) endSession(end int64) {
	if p.sess == nil {
		return
	}
	p.endUser()
	p.endAssistant()
	p.endCommand()
	s := p.sess
	p.sess = nil
	s.End = end
	// Text before the first header is a session only if it holds a user
	// message: banner remnants and preambles are not conversations.
	if s.ID == "" && p.leading && !hasUser(s) {
		return
	}
	if p.stripped && (len(s.Messages) > 0 || p.handedMessages) {
		p.hist.Stripped = true
	}
	p.name(s)
	p.hist.Sessions = append(p.hist.Sessions, *s)
}

// name gives a kept session its ordinal and ID, once: when it ends, or
// when a piece first hands over its turns (see Piece).
func (p *parser) name(s *Session) {
	if s.ID != "" {
		return
	}
	p.ordinal++
	s.Ordinal = p.ordinal
	s.ID = p.freeID(SessionID(p.pathHash, s.Started, s.Ordinal))
}

// strippedAt is strippedFrom for the session starting at offset at: in a
// history streamed, what Prescan found of it, in the order sessions start.
func (p *parser) strippedAt(at int64) bool {
	if !p.streamed {
		return p.strippedFrom(int(at - p.opts.Offset))
	}
	i := p.starts
	p.starts++
	return i < len(p.opts.Prescanned) && p.opts.Prescanned[i] == '1'
}

// strippedFrom reports whether the session starting at pos lost its
// trailing whitespace: aider ends every user line and the last line of
// every tool write in two spaces, so a session without any such line was
// stripped (by an editor or a commit hook). Deciding per session keeps a
// stripped file that aider appended to later readable in both parts.
func (p *parser) strippedFrom(pos int) bool {
	end := len(p.data)
	if pos < end {
		if i := bytes.Index(p.data[pos+1:], headerAfterNewline); i >= 0 {
			end = pos + 1 + i
		}
	}
	part := p.data[pos:end]
	return !bytes.Contains(part, []byte("  \n")) && !bytes.Contains(part, []byte("  \r\n")) && !bytes.HasSuffix(part, hardBreak)
}

func hasUser(s *Session) bool {
	for _, m := range s.Messages {
		if m.Role == User {
			return true
		}
	}
	return false
}
