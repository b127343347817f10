package aider

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrBinary marks a file that is not a text history.
var ErrBinary = errors.New("not a text file")

// ParseFile reads the history at path from opts.Offset and parses it. The
// path should be absolute (see ResolvePath); opts.Path defaults to it. A
// binary file yields an error wrapping ErrBinary and no sessions.
func ParseFile(path string, opts Options) (*History, error) {
	if opts.Path == "" {
		opts.Path = path
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a history file", path)
	}
	if opts.Offset > 0 {
		if _, err := f.Seek(opts.Offset, io.SeekStart); err != nil {
			return nil, err
		}
	}
	size := st.Size() - opts.Offset
	if size < 0 {
		size = 0
	}
	data := make([]byte, 0, size+1)
	buf := bytes.NewBuffer(data)
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	data = buf.Bytes()
	if IsBinary(data) {
		return nil, fmt.Errorf("%s: %w, skipped", path, ErrBinary)
	}
	return Parse(data, opts), nil
}

// IsBinary sniffs the first 8 KiB: NUL bytes or many control characters,
// with none of aider's markers, mean the file is not a history. A history
// with a few stray NULs is still read (they are dropped).
func IsBinary(data []byte) bool {
	sample := bytes.TrimPrefix(data, utf8BOM)
	if len(sample) > 8192 {
		sample = sample[:8192]
	}
	if len(sample) == 0 {
		return false
	}
	ctrl, nul := 0, 0
	for _, c := range sample {
		switch {
		case c == 0:
			nul++
		case c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v' && c != 0x1b:
			ctrl++
		}
	}
	if nul == 0 && ctrl*10 < len(sample) {
		return false
	}
	return !bytes.Contains(sample, header) && !bytes.Contains(sample, []byte("\n#### ")) && !bytes.HasPrefix(sample, userPrefix)
}
