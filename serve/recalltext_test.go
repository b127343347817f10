package serve

import (
	"strings"
	"testing"
)

// TestRecallTextNamesEachHarness: the answer line of a recalled turn is
// labelled with the agent that gave it, not "aider" for every harness, and
// every entry is named SESSION/TURN as the show tool takes it.
func TestRecallTextNamesEachHarness(t *testing.T) {
	o := RecallOutput{Query: "q", RealizedMode: "hybrid", Results: []RecallHit{
		{SessionID: "claude-1111", Turn: 2, Assistant: "the claude answer"},
		{SessionID: "codex-2222", Turn: -1, Assistant: "the codex answer"},
		{SessionID: "aider-3333-20260717T090000", Turn: 0, Assistant: "the aider answer"},
	}}
	text := o.Text()
	for _, want := range []string{
		"1. claude-1111/2 ·", "claude: the claude answer",
		"2. codex-2222/before ·", "codex: the codex answer",
		"3. aider-3333-20260717T090000/0 ·", "aider: the aider answer",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "aider: the claude") || strings.Contains(text, "aider: the codex") {
		t.Errorf("an answer is labelled aider's:\n%s", text)
	}
}
