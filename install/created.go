package install

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/deja-dev/deja/userfile"
)

// RecordFile is where, in deja's data directory, install keeps the
// directories it created for a config file, so --uninstall can take them
// out again and leave the home as it found it.
const RecordFile = "install-created.json"

// created is that record: the files install created, and for each the
// directories it made for it, deepest first.
type created struct {
	Dirs  map[string][]string `json:"dirs"`
	Files map[string]bool     `json:"files,omitempty"`
}

// createdFile reports whether install created file (a file it did not
// create is never removed by uninstall, even when only "{}" is left).
func createdFile(record, file string) bool {
	if record == "" {
		return false
	}
	c := loadCreated(record)
	_, dirs := c.Dirs[file]
	return c.Files[file] || dirs
}

func loadCreated(path string) created {
	c := created{Dirs: map[string][]string{}}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &c)
		if c.Dirs == nil {
			c.Dirs = map[string][]string{}
		}
	}
	return c
}

func (c created) save(path string) error {
	if len(c.Dirs) == 0 && len(c.Files) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return userfile.WriteFile(path, append(b, '\n'), 0o600)
}

// missingDirs are the directories above file that do not exist yet,
// deepest first: those writing file creates.
func missingDirs(file string) []string {
	var out []string
	for d := filepath.Dir(file); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			return out
		}
		out = append(out, d)
	}
}

// noteCreated records the directories made for file, when there is a
// record to keep.
func noteCreated(record, file string, dirs []string) error {
	if record == "" {
		return nil
	}
	c := loadCreated(record)
	if c.Files == nil {
		c.Files = map[string]bool{}
	}
	c.Files[file] = true
	if len(dirs) > 0 {
		c.Dirs[file] = slices.Clone(dirs)
	}
	return c.save(record)
}

// removeCreated takes out the directories install made for file, and
// those it made for any other file that is gone by now (a directory two
// files shared empties only when the second goes), deepest first, while
// they are empty: one that holds something else stays, and so do those
// above it, recorded for a later uninstall.
func removeCreated(record, file string) error {
	if record == "" {
		return nil
	}
	c := loadCreated(record)
	for f := range c.Files {
		if _, err := os.Lstat(f); err != nil || f == file {
			delete(c.Files, f)
		}
	}
	// Rounds until nothing more goes: a directory one file's removal
	// empties may be another's parent, whatever the order they come in.
	for changed := true; changed; {
		changed = false
		for f, dirs := range c.Dirs {
			if f != file {
				if _, err := os.Lstat(f); err == nil {
					continue
				}
			}
			var left []string
			for i, d := range dirs {
				if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
					left = dirs[i:]
					break
				}
			}
			if len(left) < len(dirs) {
				changed = true
			}
			if len(left) == 0 {
				delete(c.Dirs, f)
			} else {
				c.Dirs[f] = left
			}
		}
	}
	return c.save(record)
}
