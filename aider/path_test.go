package aider

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolvePath checks that every spelling of one history gives one name,
// whether or not the file exists yet.
func TestResolvePath(t *testing.T) {
	base := resolvedTempDir(t)
	real := filepath.Join(base, "real", "app")
	makeDir(t, real)
	makeFile(t, filepath.Join(real, HistoryFileName), "x")
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("cannot make symlinks here: %v", err)
	}
	t.Chdir(base)

	tests := []struct {
		in, want string
	}{
		{filepath.Join(real, HistoryFileName), filepath.Join(real, HistoryFileName)},
		{filepath.Join("real", "app", HistoryFileName), filepath.Join(real, HistoryFileName)},
		{filepath.Join(base, "real", "other", "..", "app", HistoryFileName), filepath.Join(real, HistoryFileName)},
		{filepath.Join(link, HistoryFileName), filepath.Join(real, HistoryFileName)},
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
