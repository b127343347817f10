package userfile

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrNotRegular marks a path that holds something other than a regular
// file where deja reads only regular files.
var ErrNotRegular = errors.New("not a regular file")

// Kind names what a mode is, for messages: "regular file", "named pipe",
// "character device" and so on.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file"
}

// notRegular is the error for a path that holds fi, not a regular file.
func notRegular(path string, fi fs.FileInfo) error {
	return fmt.Errorf("%s is a %s: %w", path, Kind(fi.Mode()), ErrNotRegular)
}
