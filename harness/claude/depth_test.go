package claude

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestDeepNestingIsAWarning: a line of two million '[' ran the JSON
// decoder's recursion out of stack, a fatal error that stopped every
// index run meeting the file; now it is one counted line and the lines
// around it are read.
func TestDeepNestingIsAWarning(t *testing.T) {
	line := func(uuid, typ, text string) string {
		return `{"type":"` + typ + `","sessionId":"11111111-2222-4333-8444-555555555555","cwd":"/home/u/app","uuid":"` + uuid +
			`","timestamp":"2026-02-10T10:01:00.000Z","message":{"role":"` + typ + `","content":"` + text + `"}}`
	}
	deep := `{"type":"user","sessionId":"11111111-2222-4333-8444-555555555555","message":` + strings.Repeat("[", 2_000_000)
	tooDeep := `{"type":"assistant","message":{"content":` + strings.Repeat(`{"a":`, 600) + `1` + strings.Repeat("}", 600) + `}}`
	data := strings.Join([]string{line("u1", "user", "first"), deep, tooDeep, line("a1", "assistant", "answer"), line("u2", "user", "second")}, "\n") + "\n"
	h := Parse([]byte(data), harness.ParseOptions{Path: "/home/u/.claude/projects/app/11111111-2222-4333-8444-555555555555.jsonl"})
	harnesstest.CheckTexts(t, h, []string{"first", "answer", "second"},
		"2 lines nested deeper than 512 levels (first at line 2), skipped")
}
