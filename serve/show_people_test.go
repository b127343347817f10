package serve

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/quote"
)

// TestShowForPeopleLabelsTheAnswerWithoutTheAgentBanner: a person's view
// of a turn names who said what, leaves out the fence and the "not
// instructions" label meant for agents, and still shows a terminal escape
// or a bidi override in the history as visible text, never obeyed.
func TestShowForPeopleLabelsTheAnswerWithoutTheAgentBanner(t *testing.T) {
	started := "2026-08-01T09:00:00Z"
	out := ShowOutput{
		SessionInfo: SessionInfo{ID: "claude-1111", Harness: "claude", Started: &started, History: "/h/s.jsonl", Present: true},
		Turns: []Turn{
			{Turn: 0, Line: 3, User: "why do the totals \x1b]52;c;ZXZpbA==\x07drift?", Assistant: "First part.\n\nSecond part \u202eevil\u202c done.",
				Files: []string{"billing/round.go"}, Commands: []string{"go test ./billing"}},
			{Turn: 1, Line: 9, Assistant: "An answer alone."},
		},
	}
	got := out.ForPeople()
	for _, want := range []string{
		"# claude-1111\n",
		"## Turn 0 (line 3)\n\nYou: why do the totals <U+001B>]52;c;ZXZpbA==<U+0007>drift?\n\nAgent (claude): First part.\n\nSecond part <U+202E>evil<U+202C> done.\n\n",
		"  file: billing/round.go\n  ran:  go test ./billing\n",
		"## Turn 1 (line 9)\n\nAgent (claude): An answer alone.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ForPeople lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{quote.Label, "```", "\x1b", "\u202e"} {
		if strings.Contains(got, not) {
			t.Errorf("ForPeople holds %q:\n%s", not, got)
		}
	}
	// A session ID is history too: shown inert in either view.
	hostile := out
	hostile.ID = "claude-1111\x1b]0;owned\x07"
	for _, text := range []string{hostile.ForPeople(), hostile.Markdown()} {
		if strings.Contains(text, "\x1b") || !strings.Contains(text, "# claude-1111<U+001B>]0;owned<U+0007>\n") {
			t.Errorf("a hostile session ID is not shown inert:\n%s", text)
		}
	}
	// The agent's view keeps the label and the fence.
	if md := out.Markdown(); !strings.Contains(md, quote.Label) || !strings.Contains(md, "```quoted") {
		t.Errorf("Markdown lost its quoting:\n%s", md)
	}
}
