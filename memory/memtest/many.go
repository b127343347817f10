package memtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/userfile"
)

// manyTurns writes an aider history of n turns, some short and thin, some
// long, into a new project, and returns its path.
func ManyTurns(t *testing.T, dir string, n int) string {
	t.Helper()
	project := filepath.Join(dir, "many")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	topics := []string{"tenant rows leak between customers", "container image is too large", "retry the flaky upload",
		"install the program on windows", "chart labels overlap on phones", "how are you?", "thanks!"}
	var b strings.Builder
	for i := range n {
		if i%20 == 0 {
			fmt.Fprintf(&b, "\n# aider chat started at 2026-03-%02d 09:%02d:00\n\n", 1+i/20%28, i%60)
		}
		topic := topics[i%len(topics)]
		fmt.Fprintf(&b, "#### %s (case %d)\n\n", topic, i)
		answer := "Looked at it and changed the handler for " + topic + "."
		if i%9 == 0 {
			answer += strings.Repeat(" The log line repeats the same trace again.", 120)
		}
		fmt.Fprintf(&b, "%s\n\n", answer)
	}
	path := filepath.Join(project, aider.HistoryFileName)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := userfile.ResolvePath(path)
	if err != nil {
		t.Fatal(err)
	}
	return path
}
