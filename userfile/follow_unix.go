//go:build unix

package userfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// noFollow makes an open fail on a symlink instead of following it.
const noFollow = syscall.O_NOFOLLOW

// mayFollow applies the rule of the kernel's fs.protected_symlinks to
// the symlink link found in the directory dir: in a sticky world-writable
// directory a link is followed only when it belongs to the user (the
// effective uid) or to the directory's owner. Anyone may plant a link in
// /tmp; only the user's own, or the owner's, may lead a write elsewhere.
func mayFollow(dir string, link fs.FileInfo) error {
	d, err := os.Stat(dir)
	if err != nil {
		return err
	}
	const shared = fs.ModeSticky | 0o002
	if d.Mode()&shared != shared {
		return nil
	}
	ls, ok1 := link.Sys().(*syscall.Stat_t)
	ds, ok2 := d.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 || ls.Uid == uint32(os.Geteuid()) || ls.Uid == ds.Uid {
		return nil
	}
	return fmt.Errorf("a symlink of uid %d in the sticky world-writable directory %s; deja follows no link another user planted there (as the kernel's protected_symlinks): remove it or name a file elsewhere: %w", ls.Uid, dir, ErrPlantedLink)
}
