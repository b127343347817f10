package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHarnessSwitchesAndDirs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("DEJA_CODEX_DIRS", "/a"+string(filepath.ListSeparator)+"/b")
	if err := os.MkdirAll(filepath.Join(dir, "deja"), 0o755); err != nil {
		t.Fatal(err)
	}
	toml := "[claude]\nenabled = false\ndirs = [\"/x/projects\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "deja", "config.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := c.Harness("claude"); h.Enabled || len(h.Dirs) != 1 || h.Dirs[0] != "/x/projects" {
		t.Errorf("claude = %+v, want switched off with /x/projects", h)
	}
	if h := c.Harness("codex"); !h.Enabled || len(h.Dirs) != 2 || h.Dirs[1] != "/b" {
		t.Errorf("codex = %+v, want on with /a and /b from DEJA_CODEX_DIRS", h)
	}
	if h := c.Harness("aider"); !h.Enabled || len(h.Dirs) != 0 {
		t.Errorf("aider = %+v, want on with default places", h)
	}
}
