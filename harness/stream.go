package harness

import (
	"bufio"
	"errors"
	"io"
	"time"
)

// LineStreamer is a FileReader that can parse a history as its lines are
// read, so that the indexer holds no more of its bytes than a chunk of
// lines: a 1 GB transcript read whole took deja index to 1.6 GB.
type LineStreamer interface {
	FileReader
	// Streams reports whether the history at path, whose first bytes are
	// head, can be parsed so; one that cannot is read whole.
	Streams(path string, head []byte) bool
	// Stream starts a parse of a history that Streams. Every session it
	// returns starts at opts.Offset, as a history that holds one session
	// does.
	Stream(opts ParseOptions) LineParser
}

// LineParser is a parse fed a history's lines in order, through a Lines
// walk over each chunk of them. Its strings must not share the bytes of
// a line: a chunk is let go once parsed.
type LineParser interface {
	// Line reads the current line and reports whether it was consumed;
	// a partial last line that is not yet whole is not.
	Line(l *Lines) bool
	// Finish returns the history, its sessions ending at end (absolute).
	Finish(end int64) *History
}

// Prescanner is a LineStreamer whose parse must know, before its first
// line, something only a look at every line tells (whether a Codex rollout
// logs the user's messages as events; which records of a Gemini CLI
// recording no later line rewrites). The indexer hands Prescan the
// history from where the parse starts, through the LineBound the parse
// reads through, then rewinds it for the parse, whose options carry what
// Prescan returned (ParseOptions.Prescanned).
type Prescanner interface {
	LineStreamer
	// Prescan reads r, holding at most a bounded head of each line or one
	// whole line (r bounds it), and returns what the parse needs to know;
	// it may stop reading early.
	Prescan(r io.Reader) (string, error)
}

// LineHeads calls head with the first bytes of each line r holds, at most
// 64 KB of it, until head returns true or r ends: a Prescan's walk, which
// holds no more than that of a line however long it is.
func LineHeads(r io.Reader, head func([]byte) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	start := true
	for {
		piece, err := br.ReadSlice('\n')
		if start && len(piece) > 0 && head(piece) {
			return nil
		}
		start = !errors.Is(err, bufio.ErrBufferFull)
		switch {
		case start && errors.Is(err, io.EOF):
			return nil
		case start && err != nil:
			return err
		}
	}
}

// PieceParser is a LineParser that can hand over, before the end, the
// turns it has finished, so that the indexer holds a piece of a session at
// a time however long the session is: a 1 GB transcript of one session
// held its text, about 300 MB, until the session was written.
type PieceParser interface {
	LineParser
	// Piece returns, for each session, the messages and records of the
	// turns that no later line can add to (every turn before the one
	// being read), and lets them go; a session with none is left out.
	// Each session carries its header as parsed so far, ending at end
	// (absolute). Finish then returns what is left, and every session
	// that had a turn in a piece, even with none left, so that the last
	// piece carries each session's final header.
	Piece(end int64) *History
}

// streamChunk is about how many bytes of whole lines ParseStream hands
// its parser at a time.
const streamChunk = 1 << 20

// ParseStream parses the history r holds from opts.Offset, a chunk of
// whole lines of about chunk bytes (0: streamChunk) at a time, with the
// parse ls.Stream starts, and drops the sessions whose IDs are not of its
// shape (CheckIDs), as ParseFile does for bytes held whole. before is how
// many lines of the history come before opts.Offset. It returns how many
// bytes it read.
func ParseStream(ls LineStreamer, r io.Reader, chunk int, before int, opts ParseOptions) (*History, int64, error) {
	return ParsePieces(ls, r, chunk, 0, before, opts, nil)
}

// ParsePieces is ParseStream handing the parse over in pieces: when the
// parser is a PieceParser and emit is set, each time about piece bytes
// have been read since the last piece, emit gets the finished turns (see
// PieceParser.Piece) and how many bytes were read for them; the history
// returned is the last piece. A piece emit refuses (an error) ends the
// parse with that error.
func ParsePieces(ls LineStreamer, r io.Reader, chunk, piece int, before int, opts ParseOptions, emit func(h *History, size int64) error) (*History, int64, error) {
	lp := ls.Stream(opts)
	pp, pieces := lp.(PieceParser)
	pieces = pieces && emit != nil && piece > 0
	var end, emitted int64
	read, err := walkChunks(r, chunk, before, func(l *Lines) {
		if lp.Line(l) {
			end = int64(l.End())
		}
	}, func(read int64) error {
		if !pieces || read-emitted < int64(piece) {
			return nil
		}
		h := pp.Piece(opts.Offset + end)
		CheckIDs(ls, h)
		if len(h.Sessions) == 0 {
			return nil
		}
		if err := emit(h, read-emitted); err != nil {
			return err
		}
		emitted = read
		return nil
	})
	if err != nil {
		return nil, read, err
	}
	h := lp.Finish(opts.Offset + end)
	CheckIDs(ls, h)
	return h, read, nil
}

// WalkLines calls line with each line r holds, read a chunk of whole
// lines of about chunk bytes (0: streamChunk) at a time, numbered from
// before+1, and returns how many bytes it read: a Prescan's walk over
// whole lines, holding one chunk of them (r bounds how long a line is).
func WalkLines(r io.Reader, chunk, before int, line func(*Lines)) (int64, error) {
	return walkChunks(r, chunk, before, line, nil)
}

// walkChunks is WalkLines calling done, when set, after each chunk with
// the bytes read so far; an error from done ends the walk.
func walkChunks(r io.Reader, chunk, before int, line func(*Lines), done func(read int64) error) (int64, error) {
	if chunk <= 0 {
		chunk = streamChunk
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var read int64
	n := before
	for {
		data, err := readLines(br, chunk)
		if err != nil {
			return read, err
		}
		if len(data) == 0 {
			return read, nil
		}
		lines := &Lines{data: data, n: n, base: int(read)}
		for lines.Next() {
			line(lines)
		}
		n = lines.n
		read += int64(len(data))
		if done != nil {
			if err := done(read); err != nil {
				return read, err
			}
		}
	}
}

// readLines reads whole lines, about chunk bytes of them (one line may be
// longer), into a buffer of their own; the last line of r may lack its
// line end. It returns no bytes at the end of r.
func readLines(br *bufio.Reader, chunk int) ([]byte, error) {
	var buf []byte
	for len(buf) < chunk {
		piece, err := br.ReadSlice('\n')
		if buf == nil {
			buf = make([]byte, 0, max(chunk, len(piece))+4096)
		}
		buf = append(buf, piece...)
		for errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the reader's buffer: read on to its
			// end, whatever the chunk (a line cut where a chunk ended
			// was parsed as two, and both were lost).
			piece, err = br.ReadSlice('\n')
			buf = append(buf, piece...)
		}
		switch {
		case errors.Is(err, io.EOF):
			return buf, nil
		case err != nil:
			return nil, err
		}
	}
	return buf, nil
}

// SplitFinished takes out of s the messages and records of the turns
// before current and returns them, leaving s the current turn's: what a
// PieceParser's Piece hands over of a session still being read. The
// slices returned are s's own, capped; s gets copies of the rest, so the
// piece handed over is not written again.
func SplitFinished(s *Session, current int) ([]Message, []Record) {
	m := 0
	for m < len(s.Messages) && s.Messages[m].Turn < current {
		m++
	}
	r := 0
	for r < len(s.Records) && s.Records[r].Turn < current {
		r++
	}
	msgs, recs := s.Messages[:m:m], s.Records[:r:r]
	s.Messages = append([]Message(nil), s.Messages[m:]...)
	s.Records = append([]Record(nil), s.Records[r:]...)
	return msgs, recs
}

// ParseTime reads an RFC 3339 time as transcripts write it, in UTC; the
// zero time when there is none or it does not parse.
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
