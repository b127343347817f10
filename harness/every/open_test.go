package every

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// No reader opens a file with os.Open, os.OpenFile or os.ReadFile: those
// wait on a FIFO planted where a reader looks (a session index, a project
// list, a sidecar), and one hangs every 'deja index' and 'deja sources'.
// Readers open what they find through harness.OpenSide or
// harness.ReadSide, and aider through userfile.
func TestReadersOpenFilesThroughOpenSide(t *testing.T) {
	plain := regexp.MustCompile(`\bos\.(Open|OpenFile|ReadFile)\(`)
	dirs, _ := filepath.Glob(filepath.Join("..", "*"))
	dirs = append(dirs, filepath.Join("..", "..", "aider"), "..")
	checked := 0
	for _, dir := range dirs {
		if filepath.Base(dir) == "harnesstest" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for i, line := range strings.Split(string(data), "\n") {
				if plain.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
					t.Errorf("%s:%d opens a file with os: %s (use harness.OpenSide or harness.ReadSide)", file, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked %d files; the readers' sources were not found", checked)
	}
}
