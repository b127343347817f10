package memtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// longSessionHistory writes one session of n turns.
func LongSessionHistory(t testing.TB, path string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("\n# aider chat started at 2026-07-19 08:15:00\n\n")
	for i := range n {
		fmt.Fprintf(&b, "#### question %d about the tenant query  \n\nanswer %d\n\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
