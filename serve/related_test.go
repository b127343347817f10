package serve

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRelatedToolFindsTaskAndFileTurns: the related tool takes the agent's
// task and files, returns the turns that match the task and those that
// touched each file (the edit first), each once, says why each came back,
// how old it is and whether it is from the agent's project, and leaves
// the agent's own session out.
func TestRelatedToolFindsTaskAndFileTurns(t *testing.T) {
	m, path := fixture(t)
	here := filepath.Dir(path)
	cs := connectPipes(t, m)

	var out RelatedOutput
	res := call(t, cs, "related", map[string]any{
		"task":  "make the container smaller",
		"files": []string{filepath.Join(here, "internal/http/ratelimit.go")},
		"here":  here,
		"limit": 4,
	}, &out)
	if res.IsError || len(out.Results) == 0 {
		t.Fatalf("related: error %v, %d results (%s)", res.IsError, len(out.Results), text(res))
	}
	var sawTask, sawFile bool
	seen := map[string]bool{}
	for _, h := range out.Results {
		ref := TurnRef(h.SessionID, h.Turn)
		if seen[ref] {
			t.Errorf("%s came back twice", ref)
		}
		seen[ref] = true
		switch {
		case h.Why == "task" && strings.Contains(h.User, "Docker image"):
			sawTask = true
		case h.Why == "internal/http/ratelimit.go" && strings.Contains(h.User, "rate limited"):
			sawFile = true
		}
	}
	if !sawTask || !sawFile {
		t.Errorf("related %+v: want the Docker turn for the task and the rate-limit turn for the file", out.Results)
	}
	txt := text(res)
	for _, want := range []string{"(this project) · matches the task", "(this project) · touched internal/http/ratelimit.go", " ago · ", "Quoted from past sessions"} {
		if !strings.Contains(txt, want) {
			t.Errorf("related text lacks %q:\n%s", want, txt)
		}
	}

	// From elsewhere, the same turns are another project's.
	res = call(t, cs, "related", map[string]any{"task": "make the container smaller", "here": "/srv/elsewhere"}, &out)
	if !strings.Contains(text(res), "(another project) · matches the task") {
		t.Errorf("related from another project:\n%s", text(res))
	}

	// The agent's own session is left out.
	own := ""
	for _, h := range out.Results {
		if strings.Contains(h.User, "Docker image") {
			own = h.SessionID
		}
	}
	if own == "" {
		t.Fatal("the Docker turn was not found from elsewhere either")
	}
	if res := call(t, cs, "related", map[string]any{"task": "make the container smaller", "session": own}, &out); res.IsError {
		t.Fatal(text(res))
	}
	for _, h := range out.Results {
		if h.SessionID == own {
			t.Errorf("related returned the agent's own session %s", own)
		}
	}

	// A file no turn names finds nothing and says so; nothing asked is an error.
	res = call(t, cs, "related", map[string]any{"files": []string{"src/components/Sidebar.tsx"}}, &out)
	if len(out.Results) != 0 || !strings.Contains(text(res), "no turn mentions src/components/Sidebar.tsx") {
		t.Errorf("related for a missing file: %d results\n%s", len(out.Results), text(res))
	}
	if res := call(t, cs, "related", map[string]any{}, nil); !res.IsError {
		t.Errorf("related with nothing asked: %s", text(res))
	}
}

// TestRecallToolFilters: the recall tool takes the harness and subagent
// filters, refuses an unknown harness, and labels turns by project.
func TestRecallToolFilters(t *testing.T) {
	m, path := fixture(t)
	m.Harnesses = []string{"aider", "claude", "codex", "gemini", "opencode"}
	cs := connectPipes(t, m)
	var r RecallOutput
	res := call(t, cs, "recall", map[string]any{"query": "Docker image", "harness": "aider", "here": filepath.Dir(path)}, &r)
	if res.IsError || len(r.Results) == 0 || !strings.Contains(text(res), "(this project)") {
		t.Fatalf("recall harness aider: error %v, %d results\n%s", res.IsError, len(r.Results), text(res))
	}
	res = call(t, cs, "recall", map[string]any{"query": "Docker image", "harness": "codex"}, &r)
	if res.IsError || len(r.Results) != 0 {
		t.Errorf("recall harness codex on an aider store: error %v, %d results", res.IsError, len(r.Results))
	}
	res = call(t, cs, "recall", map[string]any{"query": "Docker image", "harness": "vim"}, &r)
	if !res.IsError || !strings.Contains(text(res), `harness "vim": deja reads aider, claude`) {
		t.Errorf("recall harness vim: %s", text(res))
	}
	res = call(t, cs, "recall", map[string]any{"query": "Docker image", "include_subagents": true}, &r)
	if res.IsError || len(r.Results) == 0 {
		t.Errorf("recall with subagents: %s", text(res))
	}
}
