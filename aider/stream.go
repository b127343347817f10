package aider

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/deja-dev/deja/harness"
)

var (
	_ harness.Prescanner  = Reader{}
	_ harness.PieceParser = (*lineParser)(nil)
)

// Streams says every history can be parsed as its lines are read: the
// indexer does so for one too large to hold a window of whole sessions
// of (one session of hundreds of MB), and hands over its turns in pieces.
func (Reader) Streams(path string, head []byte) bool { return !IsBinary(head) }

// Prescan finds, for each session of the history r holds from where the
// parse starts, whether it was stripped of its trailing whitespace (see
// strippedFrom), which the parse must know from the session's first line:
// one byte per session start ('1' stripped, '0' not), the text before the
// first header first. It holds no more than a buffer of any line.
func (Reader) Prescan(r io.Reader) (string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var flags []byte
	// hard: the session being scanned has a line ending in two spaces
	// before its line end. loose and strict: the last whole line did,
	// before a CR or not; a session's last line counts only when strict,
	// as the line end that follows it is not part of the session.
	hard, have, loose, strict := false, false, false, false
	first := true
	headLen := len(utf8BOM) + len(header)
	head := make([]byte, 0, headLen)
	var tail [4]byte // the line's last bytes, up to four
	size := 0
	for {
		piece, err := br.ReadSlice('\n')
		if len(head) < headLen {
			head = append(head, piece[:min(len(piece), headLen-len(head))]...)
		}
		for _, c := range piece {
			tail[0], tail[1], tail[2], tail[3] = tail[1], tail[2], tail[3], c
		}
		size += len(piece)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		if size == 0 {
			break
		}
		line := head
		if first {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		switch starts := bytes.HasPrefix(line, header); {
		case first && starts:
			// No text before the first header: its session is empty.
			flags = append(flags, '0')
		case starts:
			flags = appendStripped(flags, hard || (have && strict))
			hard = false
		case have:
			hard = hard || loose
		}
		first = false
		body := tail[4-min(size, 4):]
		if tail[3] == '\n' {
			body = body[:len(body)-1]
			strict = bytes.HasSuffix(body, hardBreak)
			loose = strict || bytes.HasSuffix(body, []byte("  \r"))
			have = true
		} else {
			// The last line, with no line end.
			have = false
			hard = hard || bytes.HasSuffix(body, hardBreak)
		}
		head, size = head[:0], 0
		if err != nil {
			break
		}
	}
	if have {
		hard = hard || loose
	}
	return string(appendStripped(flags, hard)), nil
}

// appendStripped adds a session's flag for Prescan: stripped when none of
// its lines ended in two spaces.
func appendStripped(flags []byte, hard bool) []byte {
	if hard {
		return append(flags, '0')
	}
	return append(flags, '1')
}

// Stream starts a parse fed the history's lines in order; opts.Prescanned
// is what Prescan found (without it, no session is taken as stripped).
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser {
	p := newParser(nil, opts)
	p.streamed = true
	p.startSession(nil, opts.Offset, true)
	return &lineParser{p: p, pendingOffset: -1}
}

// lineParser is Parse fed a line at a time. A line is read once the next
// one is known, as where aider's writes end depends on how the next line
// starts (see endsWrite).
type lineParser struct {
	p *parser
	// pending is the line not yet read, a copy of its own; pendingOffset
	// is its offset, -1 when there is none.
	pending       []byte
	pendingOffset int64
	pendingNumber int
}

// Line takes the current line and reads the one before it.
func (lp *lineParser) Line(l *harness.Lines) bool {
	line, offset := l.Line, lp.p.opts.Offset+int64(l.Offset)
	if offset == 0 && bytes.HasPrefix(line, utf8BOM) {
		// A BOM opens the file, not its first line (as Parse reads it).
		line, offset = line[len(utf8BOM):], int64(len(utf8BOM))
		if lp.p.leading {
			lp.p.sess.Offset = offset
		}
	}
	next := bytes.Clone(line)
	if next == nil {
		next = []byte{}
	}
	lp.read(next)
	lp.pending, lp.pendingOffset, lp.pendingNumber = next, offset, l.Number
	return true
}

// read reads the pending line, ahead being the line after it (nil at the
// end of the history).
func (lp *lineParser) read(ahead []byte) {
	if lp.pendingOffset < 0 {
		return
	}
	p, line := lp.p, lp.pending
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	p.line = lp.pendingNumber
	p.lineOffset = lp.pendingOffset
	p.ahead = ahead
	p.step(line)
	p.prevBlank = len(line) == 0
	lp.pending, lp.pendingOffset = nil, -1
}

// Finish reads the last line and returns every session, those whose
// turns pieces handed over with what is left of them.
func (lp *lineParser) Finish(end int64) *harness.History {
	lp.read(nil)
	p := lp.p
	p.endSession(end)
	p.finish()
	return p.hist
}

// Piece hands over the turns no later line can add to: every turn of the
// sessions that ended since the last piece, and those of the session
// being read before its current turn. A session the piece names gets its
// ID then, as it is known to be kept.
func (lp *lineParser) Piece(end int64) *harness.History {
	p := lp.p
	h := &harness.History{Path: p.hist.Path}
	for i := p.handed; i < len(p.hist.Sessions); i++ {
		s := &p.hist.Sessions[i]
		if len(s.Messages) == 0 && len(s.Records) == 0 {
			continue
		}
		piece := *s
		s.Messages, s.Records = nil, nil
		h.Sessions = append(h.Sessions, piece)
	}
	p.handed = len(p.hist.Sessions)
	if s := p.sess; s != nil {
		// Only a user message moves the turn on, so a session with
		// finished turns is kept, even the text before the first header.
		msgs, recs := harness.SplitFinished(s, p.turn)
		if len(msgs) > 0 || len(recs) > 0 {
			p.name(s)
			p.handedMessages = p.handedMessages || len(msgs) > 0
			piece := *s
			piece.Messages, piece.Records, piece.End = msgs, recs, end
			h.Sessions = append(h.Sessions, piece)
		}
	}
	return h
}
