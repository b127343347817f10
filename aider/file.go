package aider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/deja-dev/deja/userfile"
)

// ErrBinary marks a file that is not a text history.
var ErrBinary = errors.New("not a text file")

// ParseFile reads the history at path from opts.Offset and parses it. The
// path should be absolute (see userfile.ResolvePath); opts.Path defaults to it. A
// binary file yields an error wrapping ErrBinary and no sessions; a FIFO,
// device or socket one wrapping userfile.ErrNotRegular, without being
// opened.
func ParseFile(path string, opts Options) (*History, error) {
	return ParseFileContext(context.Background(), path, opts)
}

// ParseFileContext is ParseFile that stops reading when ctx ends.
func ParseFileContext(ctx context.Context, path string, opts Options) (*History, error) {
	if opts.Path == "" {
		opts.Path = path
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a history file", path)
	}
	data, _, err := userfile.Read(ctx, path, opts.Offset)
	if errors.Is(err, userfile.ErrNotRegular) {
		return nil, fmt.Errorf("%w, skipped (point deja at the history file itself)", err)
	}
	if err != nil {
		return nil, err
	}
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
