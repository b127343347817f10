package codex

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestDeepNestingIsAWarning: a rollout line of two million '[' ran the
// JSON decoder's recursion out of stack (fatal); now it is one counted
// line, and a tool call whose arguments string nests as deep is read
// without its arguments.
func TestDeepNestingIsAWarning(t *testing.T) {
	meta := `{"timestamp":"2025-12-25T13:00:00.000Z","type":"session_meta","payload":{"id":"019b55c1-d022-7061-bbb9-b0c90708472b","timestamp":"2025-12-25T13:45:23.746Z","cwd":"/home/u/app"}}`
	user := func(text string) string {
		return `{"timestamp":"2025-12-25T13:01:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"` + text + `"}}`
	}
	deep := `{"timestamp":"x","type":"event_msg","payload":` + strings.Repeat("[", 2_000_000)
	deepArgs := `{"timestamp":"2025-12-25T13:01:30.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c1","arguments":"` +
		strings.Repeat("[", 2_000_000) + `"}}`
	data := strings.Join([]string{meta, user("first"), deep, deepArgs, user("second")}, "\n") + "\n"
	h := Parse([]byte(data), harness.ParseOptions{Path: "/home/u/.codex/sessions/rollout-2025-12-25T13-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl"})
	harnesstest.CheckTexts(t, h, []string{"first", "second"},
		"1 line nested deeper than 512 levels (first at line 3), skipped")
}

// TestDeepLegacyRolloutIsAWarning: a legacy rollout is one JSON object
// read whole; nested two million deep it is refused with a warning.
func TestDeepLegacyRolloutIsAWarning(t *testing.T) {
	const n = 2_000_000
	data := `{"session":{"id":"0418f71e-beb0-474c-a03d-1719a72e64cc","timestamp":"2025-08-23T11:03:20.415Z"},"items":[` +
		strings.Repeat("[", n) + strings.Repeat("]", n) + `]}`
	h := Parse([]byte(data), harness.ParseOptions{Path: "/home/u/.codex/sessions/rollout-2025-08-23-0418f71e-beb0-474c-a03d-1719a72e64cc.json"})
	if len(h.Sessions) != 0 || len(h.Warnings) != 1 {
		t.Errorf("%d sessions, warnings %v; want none and one warning", len(h.Sessions), h.Warnings)
	}
}
