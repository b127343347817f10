package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/deja-dev/deja/userfile"
)

// BackupSuffix names the copy of a config file deja keeps from before
// it changed the file.
const BackupSuffix = ".deja-backup"

// maxConfig bounds the config files deja reads and edits.
const maxConfig = 16 << 20

// A Change is what installing (or uninstalling) does to one target's file.
type Change struct {
	Target Target
	// Action is "add", "remove", "unchanged" (deja is already in, or
	// already out).
	Action  string
	Existed bool
	Old     []byte
	New     []byte
	// Delete is set when uninstalling leaves nothing of a file but an
	// empty object or nothing at all: the file goes.
	Delete bool
	Mode   fs.FileMode
}

// Plan works out the change without writing anything.
func Plan(ctx context.Context, t Target, uninstall bool) (Change, error) {
	c := Change{Target: t, Mode: 0o600}
	if t.mode != 0 {
		c.Mode = t.mode
	}
	fi, err := os.Stat(t.File)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return c, fmt.Errorf("%s: %w", t.File, err)
	default:
		if !fi.Mode().IsRegular() {
			return c, fmt.Errorf("%s is a %s, not a file; deja edits only regular files", t.File, userfile.Kind(fi.Mode()))
		}
		if fi.Size() > maxConfig {
			return c, fmt.Errorf("%s is %d bytes, more than a config file deja edits (%d); edit it by hand", t.File, fi.Size(), maxConfig)
		}
		c.Existed, c.Mode = true, fi.Mode().Perm()
		if c.Old, _, err = userfile.Read(ctx, t.File, 0); err != nil {
			return c, err
		}
	}
	edit, action := t.add, "add"
	if uninstall {
		edit, action = t.remove, "remove"
	}
	if uninstall && !c.Existed {
		c.Action, c.New = "unchanged", c.Old
		return c, nil
	}
	c.New, err = edit(c.Old)
	if err != nil {
		return c, fmt.Errorf("%s: %w", t.File, err)
	}
	if bytes.Equal(c.New, c.Old) && c.Existed {
		c.Action = "unchanged"
		return c, nil
	}
	c.Action = action
	if uninstall {
		// A file left empty, "{}" or as install seeded it goes only when
		// install made it: a user's own, even an empty one, stays as it
		// was.
		trimmed := bytes.TrimSpace(c.New)
		bare := len(trimmed) == 0 || string(trimmed) == "{}" || (t.seed != nil && bytes.Equal(trimmed, bytes.TrimSpace(t.seed)))
		if bare && createdFile(t.record, t.File) {
			c.Delete = true
		}
	}
	return c, nil
}

// Diff is the change as a unified diff ("" when nothing changes).
func (c Change) Diff() string {
	if c.Action == "unchanged" {
		return ""
	}
	from, to := c.Target.File, c.Target.File
	if !c.Existed {
		from = "/dev/null"
	}
	newText := string(c.New)
	if c.Delete {
		to, newText = "/dev/null", ""
	}
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(c.Old)), B: difflib.SplitLines(newText),
		FromFile: from, ToFile: to, Context: 3,
	})
	return d
}

// Apply writes the change: a backup of the old file beside it, then the
// new bytes through a temporary file renamed over the old, with the old
// file's mode (0600 for a new one). Installing into a file that did not
// exist notes the directories it made for it (Env.Record). Uninstalling
// leaves nothing of deja's behind: once the file is back as it was, its
// backup goes, and a file install created goes with the directories made
// for it.
func Apply(ctx context.Context, c Change) error {
	if c.Action == "unchanged" {
		return nil
	}
	file := c.Target.File
	uninstall := c.Action == "remove"
	if c.Existed && !c.Delete {
		if err := userfile.WriteFile(file+BackupSuffix, c.Old, 0o600); err != nil {
			return fmt.Errorf("backing up %s: %w; nothing was changed", file, err)
		}
	}
	if c.Delete {
		if err := os.Remove(file); err != nil {
			return fmt.Errorf("removing %s: %w", file, err)
		}
		os.Remove(file + BackupSuffix)
		return removeCreated(c.Target.record, file)
	}
	made := missingDirs(file)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := userfile.WriteFile(file, c.New, c.Mode); err != nil {
		return err
	}
	if uninstall {
		os.Remove(file + BackupSuffix)
		return nil
	}
	if !c.Existed {
		return noteCreated(c.Target.record, file, made)
	}
	return nil
}

// Wired reports whether deja's entry is in t's file as install writes
// it (wired), and whether some entry named deja is there at all
// (present: wired, or one that starts another deja).
func Wired(ctx context.Context, t Target) (wired, present bool, err error) {
	b, _, err := userfile.Read(ctx, t.File, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if t.has(b) {
		return true, true, nil
	}
	return false, t.present(b), nil
}
