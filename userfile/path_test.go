package userfile

import (
	"os"
	"path/filepath"
	"testing"
)

// historyName is aider's history file name, as an example of a history.
const historyName = ".aider.chat.history.md"

// TestResolvePath checks that every spelling of one history gives one name,
// whether or not the file exists yet.
func TestResolvePath(t *testing.T) {
	base := resolvedTempDir(t)
	real := filepath.Join(base, "real", "app")
	makeDir(t, real)
	makeFile(t, filepath.Join(real, historyName), "x")
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("cannot make symlinks here: %v", err)
	}
	t.Chdir(base)

	tests := []struct {
		in, want string
	}{
		{filepath.Join(real, historyName), filepath.Join(real, historyName)},
		{filepath.Join("real", "app", historyName), filepath.Join(real, historyName)},
		{filepath.Join(base, "real", "other", "..", "app", historyName), filepath.Join(real, historyName)},
		{filepath.Join(link, historyName), filepath.Join(real, historyName)},
		// Not written yet: the directory that exists is still resolved.
		{filepath.Join(link, "new", "chat.md"), filepath.Join(real, "new", "chat.md")},
		{filepath.Join(base, "none", "chat.md"), filepath.Join(base, "none", "chat.md")},
	}
	for _, tt := range tests {
		got, err := ResolvePath(tt.in)
		if err != nil {
			t.Errorf("ResolvePath(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ResolvePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	if _, err := ResolvePath(""); err == nil {
		t.Error("ResolvePath(\"\") returned no error")
	}
}

// resolvedTempDir is t.TempDir with symlinks resolved, so that expected
// paths match resolved ones where the temporary directory is itself behind
// a link (macOS's /var).
func resolvedTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func makeDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func makeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
