package copilot

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestParsePrompts pins command-history-state.json ([CP6] and a made-up
// one): each prompt a session of one question linked to none, slash
// commands skipped (a path is none), an entry that is no string
// counted, and a file that is no command history a warning.
func TestParsePrompts(t *testing.T) {
	var r Reader
	const path = "/home/u/.copilot/command-history-state.json"
	data := []byte(`{"commandHistory":["/model","fix the flaky upload test",7,"/plugin install caveman","fix the flaky upload test","/usr/bin/env fails here"]}`)
	if err := r.Sniff(path, data); err != nil {
		t.Fatalf("sniff: %v", err)
	}
	h := harness.ParseFile(r, data, harness.ParseOptions{Path: path})
	var texts []string
	for _, s := range h.Sessions {
		if !s.PromptOnly || s.Parent != "" || s.Project != "" || !r.ValidID(s.ID) {
			t.Errorf("session %+v", s)
		}
		texts = append(texts, s.Messages[0].Text)
	}
	if want := []string{"fix the flaky upload test", "/usr/bin/env fails here"}; !slices.Equal(texts, want) {
		t.Errorf("prompts %q, want %q", texts, want)
	}
	if want := []string{"1 line not a string (first at line 3), skipped"}; !slices.Equal(h.Warnings, want) {
		t.Errorf("warnings %q, want %q", h.Warnings, want)
	}
	if h := harness.ParseFile(r, []byte(`{"commandHistory":"x"`), harness.ParseOptions{Path: path}); len(h.Sessions) != 0 || len(h.Warnings) != 1 {
		t.Errorf("a broken file gave %+v", h)
	}

	corpus, err := os.ReadFile(filepath.Join(harnesstest.SharedCorpus+"copilot-cli", "XEFF09__dotfiles__.copilot_command-history-state.json"))
	if err != nil {
		t.Skip(err)
	}
	if err := r.Sniff(path, corpus); err != nil {
		t.Fatalf("[CP6] refused: %v", err)
	}
	h = harness.ParseFile(r, corpus, harness.ParseOptions{Path: path})
	texts = nil
	for _, s := range h.Sessions {
		texts = append(texts, s.Messages[0].Text)
	}
	if want := []string{"hi"}; !slices.Equal(texts, want) || len(h.Warnings) > 0 {
		t.Errorf("[CP6] prompts %q, warnings %q", texts, h.Warnings)
	}
}
