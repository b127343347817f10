package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// maxLinks bounds how many symlinks WriteFile follows, as the kernel
// bounds a path's (ELOOP).
const maxLinks = 40

// ErrPlantedLink marks a symlink WriteFile does not follow: one in a
// sticky world-writable directory (/tmp) that neither the user nor the
// directory's owner made.
var ErrPlantedLink = errors.New("symlink planted by another user")

// WriteFile writes data to path with respect for what is there:
//
//   - nothing, or a regular file: a temporary file beside it, created
//     with O_EXCL|O_NOFOLLOW, synced and renamed over it, so a reader
//     sees the old bytes or the new, never half; the file gets perm;
//   - a symlink (at the path or at any directory on the way to it): the
//     same rules at the link's target, which is updated while the link
//     stays, unless the link is one the kernel's protected_symlinks would
//     not follow (ErrPlantedLink), whether or not the machine has it on;
//   - anything else (a named pipe, a socket, a device, a directory): an
//     error that says what is there, wrapping ErrNotRegular. A pipe or a
//     device in a shared directory may be another user's ear, and
//     nothing written for the user should go there.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	target, fi, err := resolve(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if fi != nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("writing %s: %s is a %s, and deja writes only a regular file (or a symlink to one) there: name a file: %w", path, target, Kind(fi.Mode()), ErrNotRegular)
	}
	if err := replace(target, data, perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// resolve walks path a name at a time as the kernel does, following the
// symlinks it meets where protected_symlinks would, and returns the path
// it ends at, with no symlink left in it, and what is there: nil when
// nothing is there yet (a new file, or a link to one).
func resolve(path string) (string, fs.FileInfo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, err
	}
	vol := filepath.VolumeName(abs)
	done := vol + string(filepath.Separator)
	todo := strings.Split(abs[len(done):], string(filepath.Separator))
	links := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) && len(todo) == 0 {
			return next, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if len(todo) > 0 && !fi.IsDir() {
				return "", nil, fmt.Errorf("%s is a %s, not a directory", next, Kind(fi.Mode()))
			}
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", nil, fmt.Errorf("more than %d symlinks in a row (a loop?)", maxLinks)
		}
		if err := mayFollow(done, fi); err != nil {
			return "", nil, fmt.Errorf("%s: %w", next, err)
		}
		// A link to what is no file or directory ends the walk there:
		// /proc's links to a pipe or a socket (/dev/fd/1 when the output
		// is piped) read as "pipe:[583502]", no path to follow.
		if to, err := os.Stat(next); err == nil && !to.Mode().IsRegular() && !to.IsDir() {
			return next, to, nil
		}
		dest, err := os.Readlink(next)
		if err != nil {
			return "", nil, err
		}
		if filepath.IsAbs(dest) {
			v := filepath.VolumeName(dest)
			done = v + string(filepath.Separator)
			dest = dest[len(done):]
		}
		todo = append(strings.Split(dest, string(filepath.Separator)), todo...)
	}
	fi, err := os.Lstat(done)
	if err != nil {
		return "", nil, err
	}
	return done, fi, nil
}

// replace writes data to a temporary file beside path and renames it
// over path. The temporary file is created anew (O_EXCL) and never
// through a link (O_NOFOLLOW), so nothing another user put in the
// directory can receive the bytes; the rename replaces the name, never
// what it pointed to.
func replace(path string, data []byte, perm fs.FileMode) error {
	f, err := createTemp(filepath.Dir(path), "."+filepath.Base(path)+".")
	if err != nil {
		return err
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
		return err
	}
	return nil
}

// createTemp creates a new file named prefix and a number in dir, as
// os.CreateTemp does, adding O_NOFOLLOW to its O_EXCL.
func createTemp(dir, prefix string) (*os.File, error) {
	seed := uint32(time.Now().UnixNano()) ^ uint32(os.Getpid())<<16
	for try := 0; ; try++ {
		seed = seed*1664525 + 1013904223
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(seed), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}
