package userfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// maxLinks bounds how many symlinks WriteFile follows, as the kernel
// bounds a path's (ELOOP).
const maxLinks = 40

// WriteFile writes data to path with respect for what is there:
//
//   - nothing, or a regular file: a temporary file beside it, synced,
//     renamed over it, so a reader sees the old bytes or the new, never
//     half; the file gets perm;
//   - a named pipe or a device: opened and written as it is (the pipe's
//     reader gets the bytes, /dev/null swallows them), never replaced;
//   - a symlink: the same rules at the link's target, which is updated
//     while the link stays;
//   - anything else (a directory, a socket): an error that says what is
//     there.
//
// Opening a named pipe waits for its reader until ctx ends.
func WriteFile(ctx context.Context, path string, data []byte, perm fs.FileMode) error {
	target, fi, err := follow(path)
	if err != nil {
		return err
	}
	switch {
	case fi == nil || fi.Mode().IsRegular():
		return replace(target, data, perm)
	case fi.Mode()&fs.ModeNamedPipe != 0:
		return writePipe(ctx, target, data)
	case fi.Mode()&fs.ModeDevice != 0:
		return writeInPlace(target, data, os.O_WRONLY)
	}
	return fmt.Errorf("%s is a %s: deja writes only to a regular file, a named pipe, a device or a symlink to one; name a file", target, Kind(fi.Mode()))
}

// follow resolves the symlinks at path to the file they end at, and
// returns that path with its information, nil when nothing is there yet
// (a new file, or a link to one).
func follow(path string) (string, fs.FileInfo, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil, nil
		}
		if err != nil {
			return "", nil, fmt.Errorf("writing %s: %w", path, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, fi, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", nil, fmt.Errorf("writing %s: %w", path, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", nil, fmt.Errorf("writing %s: more than %d symlinks in a row (a loop?)", path, maxLinks)
}

// replace writes data to a temporary file beside path and renames it
// over path.
func replace(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// pipePoll is how often writePipe looks for the pipe's reader.
const pipePoll = 20 * time.Millisecond

// waitNoticeKey carries the function told once that a write waits for a
// named pipe's reader.
type waitNoticeKey struct{}

// WithWaitNotice returns a context under which WriteFile calls notice
// with the path once, when it starts waiting for a named pipe's reader: a
// command can then say why it is waiting instead of hanging silently.
func WithWaitNotice(ctx context.Context, notice func(path string)) context.Context {
	return context.WithValue(ctx, waitNoticeKey{}, notice)
}

// writePipe opens the named pipe without blocking, so the wait for a
// reader can end with ctx, then writes to it.
func writePipe(ctx context.Context, path string, data []byte) error {
	told := false
	for {
		err := writeInPlace(path, data, os.O_WRONLY|nonBlock)
		if !noReader(err) {
			return err
		}
		if notice, ok := ctx.Value(waitNoticeKey{}).(func(string)); ok && !told {
			notice(path)
			told = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("writing %s: no reader opened the named pipe: %w", path, ctx.Err())
		case <-time.After(pipePoll):
		}
	}
}

// writeInPlace opens what is at path with flag, checks it is still no
// regular file, a directory or a link (the path may have changed since it
// was looked at), and writes data to it.
func writeInPlace(path string, data []byte, flag int) error {
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err == nil && (fi.Mode().IsRegular() || fi.IsDir()) {
		err = fmt.Errorf("it became a %s while deja wrote; try again", Kind(fi.Mode()))
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
