package userfile

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// readChunk is how much Read takes between looks at its context.
const readChunk = 1 << 20

// Open opens the regular file at path for reading, following symlinks. A
// FIFO, device or socket is refused without being opened, and the open
// itself does not block (O_NONBLOCK) should the path be swapped for one
// between the look and the open; the opened file is looked at again.
func Open(path string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, notRegular(path, fi)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, notRegular(path, fi)
	}
	return f, fi, nil
}

// Read reads the regular file at path from offset to its end, as Open
// opens it, and gives up with ctx's error when ctx ends. It returns the
// opened file's information with the bytes.
func Read(ctx context.Context, path string, offset int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			return nil, fi, err
		}
	}
	size := max(fi.Size()-offset, 0)
	// One more byte than the size, so a file that did not grow is read
	// without growing the buffer.
	data := make([]byte, 0, size+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fi, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):min(cap(data), len(data)+readChunk)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, fi, nil
		}
		if err != nil {
			return nil, fi, fmt.Errorf("reading %s: %w", path, err)
		}
	}
}
