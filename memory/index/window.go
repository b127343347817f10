package index

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"math"
)

// windowSize is about how many bytes of a history are parsed at a time. A
// window holds whole sessions, so one session larger than this makes its
// window larger; memory follows the window, not the file (a 200 MB history
// read whole once peaked near ten times its size).
const windowSize = 4 << 20

// windowReader reads a history from an offset, a window of whole sessions
// at a time, and keeps the SHA-256 of the bytes before the point the
// caller marks (the start of the last session).
type windowReader struct {
	r   io.Reader
	buf []byte
	// off is the file offset of buf[0].
	off  int64
	eof  bool
	sum  hash.Hash
	size int
	// start is what begins a session at the start of a line (aider's
	// header). The parser starts a session at such a line whatever state
	// it is in, so parsing a history window by window, each window ending
	// where one begins, gives the sessions that parsing it whole gives.
	start []byte
	// clean is how much of buf is known to hold no session start past its
	// first byte, so that a session many windows long is scanned once.
	clean int
	// left is about how many bytes are still to be read, to size buf.
	left int64
}

// newWindowReader reads r from offset off; left is about how many bytes
// it holds (the file's size past off), so that a window's buffer is made
// at its size instead of grown to it.
func newWindowReader(r io.Reader, off, left int64, sum hash.Hash, size int, start []byte) *windowReader {
	if sum == nil {
		sum = sha256.New()
	}
	w := &windowReader{r: r, off: off, sum: sum, size: size, start: append([]byte("\n"), start...), left: left}
	w.buf = make([]byte, 0, w.want())
	return w
}

// heldWindow is a windowReader whose one window is data, a history's
// bytes from offset off, already read.
func heldWindow(data []byte, off int64, sum hash.Hash) *windowReader {
	return &windowReader{buf: data, off: off, eof: true, sum: sum, size: math.MaxInt}
}

// want is the capacity a window's buffer starts with: the window's size or
// what is left to read, and a chunk to spare.
func (w *windowReader) want() int {
	return int(min(int64(w.size), max(w.left, 0))) + readChunk
}

// next returns the next window and its file offset; last reports the window
// that ends at the end of the file. Each window must be passed to done
// before the next call; its bytes stay the caller's.
func (w *windowReader) next() (window []byte, off int64, last bool, err error) {
	for {
		if len(w.buf) >= w.size || w.eof {
			if w.eof {
				return w.buf, w.off, true, nil
			}
			// The last session start in the buffer, past its first byte:
			// everything before it is whole sessions.
			from := max(1, w.clean-len(w.start))
			if i := bytes.LastIndex(w.buf[from:], w.start); i >= 0 {
				w.clean = 0
				return w.buf[:from+i+1], w.off, false, nil
			}
			w.clean = len(w.buf)
		}
		if err := w.fill(); err != nil {
			return nil, 0, false, err
		}
	}
}

// readChunk is how much fill reads at a time.
const readChunk = 64 << 10

// fill reads up to readChunk more bytes, or to the end of the file.
func (w *windowReader) fill() error {
	n := len(w.buf)
	if cap(w.buf)-n < readChunk {
		grown := make([]byte, n, max(2*cap(w.buf), n+readChunk))
		copy(grown, w.buf)
		w.buf = grown
	}
	got, err := io.ReadFull(w.r, w.buf[n:n+readChunk])
	w.buf = w.buf[:n+got]
	w.left -= int64(got)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		w.eof = true
		return nil
	}
	return err
}

// done drops a window returned by next, hashing its first hashed bytes
// (all of them but for the last window, where the last session begins).
// The bytes after it move to a buffer of their own: the window's are
// handed to the writer, which parses them while the next window is read.
func (w *windowReader) done(window []byte, hashed int) {
	w.sum.Write(window[:hashed])
	rest := w.buf[len(window):]
	w.buf = append(make([]byte, 0, len(rest)+w.want()), rest...)
	w.off += int64(len(window))
}

// fingerprint is the SHA-256 of the bytes hashed so far.
func (w *windowReader) fingerprint() []byte { return w.sum.Sum(nil) }
