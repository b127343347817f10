package zed

import (
	"testing"

	"github.com/deja-dev/deja/harness"
)

// TestTerminalOutcome reads every answer process_content in Zed's
// terminal_tool.rs gives, and one of no shape it knows.
func TestTerminalOutcome(t *testing.T) {
	exit := func(n int) *int { return &n }
	for _, c := range []struct {
		text    string
		isError bool
		want    harness.Outcome
	}{
		{"Command executed successfully.", false, harness.Outcome{Status: harness.Succeeded, Exit: exit(0)}},
		{"```\nok\n```", false, harness.Outcome{Status: harness.Succeeded, Exit: exit(0), Output: "ok"}},
		{"```\n\n```", false, harness.Outcome{Status: harness.Succeeded, Exit: exit(0)}},
		{"Command output too long. The first 16404 bytes:\n\n```\nline 1\nline 2\n```", false, harness.Outcome{Status: harness.Succeeded, Exit: exit(0), Output: "line 1\nline 2"}},
		{"Command \"go test\" failed with exit code 2.", false, harness.Outcome{Status: harness.Failed, Exit: exit(2)}},
		{"Command \"go test\" failed with exit code 1.\n\n```\nFAIL x\n```", false, harness.Outcome{Status: harness.Failed, Exit: exit(1), Output: "FAIL x"}},
		{"Command \"go test\" timed out. No output was captured.", false, harness.Outcome{Status: harness.Failed}},
		{"Command \"go test\" timed out. Output captured before timeout:\n\n```\nslow\n```", false, harness.Outcome{Status: harness.Failed, Output: "slow"}},
		{"The user stopped this command. Output captured before stopping:\n\n```\npartial\n```\n\nSince the user intentionally interrupted this command, ask them what they would like to do next rather than automatically retrying or assuming something went wrong.", false, harness.Outcome{Status: harness.Failed, Output: "partial"}},
		{"Command terminated unexpectedly. No output was captured.", false, harness.Outcome{Status: harness.Failed}},
		{"exit status 1", false, harness.Outcome{Output: "exit status 1"}},
		{"`cd` directory \"x\" was not in any of the project's worktrees.", true, harness.Outcome{Status: harness.Failed}},
	} {
		got := terminalOutcome("go test", c.text, c.isError)
		if got.Status != c.want.Status || got.Output != c.want.Output || (got.Exit == nil) != (c.want.Exit == nil) || got.Exit != nil && *got.Exit != *c.want.Exit {
			t.Errorf("terminalOutcome(%q) = %+v, want %+v", c.text, got, c.want)
		}
		if err := harness.CheckOutcome(harness.Record{Kind: harness.CommandRecord, Value: "go test", Outcome: got}); err != nil {
			t.Errorf("%q: %v", c.text, err)
		}
	}
}
