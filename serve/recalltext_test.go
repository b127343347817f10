package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/recall"
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

// TestRecallTextSaysWhoseTurn: a turn a team folded in says whose it is,
// in the text agents read and in the JSON; a local one says nothing.
func TestRecallTextSaysWhoseTurn(t *testing.T) {
	o := NewRecallOutput(&recall.Answer{Query: "q", RealizedMode: recall.Hybrid, Results: []recall.Result{
		{SessionID: "aider-1111", Project: "/src/api", Assistant: "alice's answer", From: "alice@laptop-3f2a1c"},
		{SessionID: "aider-2222", Project: "/src/api", Assistant: "my answer"},
	}})
	text := o.Text()
	if !strings.Contains(text, "1. aider-1111/0 · start unknown · /src/api · from alice@laptop-3f2a1c\n") {
		t.Errorf("the folded turn does not say whose it is:\n%s", text)
	}
	if !strings.Contains(text, "2. aider-2222/0 · start unknown · /src/api\n") {
		t.Errorf("the local turn says more than its project:\n%s", text)
	}
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"from":`); n != 1 || !strings.Contains(string(data), `"from":"alice@laptop-3f2a1c"`) {
		t.Errorf("the JSON has %d from fields, want alice's alone: %s", n, data)
	}
}

// TestNoProjectAndNoStartAreWorded: a prompt of a history that names no
// project reads "(no project)", not a blank after the last " · "; a
// session with no start is "Start unknown", not "Started start unknown".
func TestNoProjectAndNoStartAreWorded(t *testing.T) {
	o := NewRecallOutput(&recall.Answer{Query: "q", RealizedMode: recall.Hybrid, Results: []recall.Result{
		{SessionID: "codex-prompt-515f9588a5ba524c", User: "why is the grpc stream closing"},
	}})
	if text := o.Text(); !strings.Contains(text, "1. codex-prompt-515f9588a5ba524c/0 · start unknown · (no project)\n") {
		t.Errorf("the turn with no project:\n%s", text)
	}
	var unknown ShowOutput
	unknown.ID, unknown.History, unknown.Present = "copilot-prompt-d4087b6f84589dee", "/h/.copilot/command-history-state.json", true
	if h := unknown.heading(); !strings.Contains(h, "\nStart unknown · /h/.copilot/") {
		t.Errorf("heading of a session with no start:\n%s", h)
	}
	started := "2026-01-01T00:00:00Z"
	unknown.Started = &started
	if h := unknown.heading(); !strings.Contains(h, "\nStarted 2026-01-01T00:00:00Z · /h") {
		t.Errorf("heading of a session with a start:\n%s", h)
	}
}
