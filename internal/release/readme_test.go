package release

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is a front page a newcomer reads: at most 150 lines, opening
// with the two fresh-machine commands, and every page it links to exists.
// The rest lives in docs/.
func TestReadmeIsAFrontPage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(text, "\n"); n > 150 {
		t.Errorf("README.md has %d lines; the front page keeps to 150 and moves the rest to docs/", n)
	}
	lines := strings.Split(text, "\n")
	if len(lines) < 5 || lines[2] != "```sh" || !strings.Contains(lines[3], "deja index testdata/sample") || lines[4] != "./test.sh" {
		t.Errorf("README.md must open with the two fresh-machine commands (index the sample and recall, ./test.sh); it opens with:\n%s", strings.Join(lines[:min(5, len(lines))], "\n"))
	}
	for _, m := range regexp.MustCompile(`\]\(((?:docs/)?[^)#:\s]+)(?:#[^)]*)?\)`).FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
			t.Errorf("README.md links to %s, which does not exist", m[1])
		}
	}
}
