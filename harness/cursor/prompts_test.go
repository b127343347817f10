package cursor

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestReadPrompts pins prompt_history.json ([CU2]: a JSON array of
// prompt strings; another entry is counted and skipped): found in ~/.cursor
// and $CURSOR_CONFIG_DIR, each prompt a session of one question linked to
// none, with the marker that keeps it from being read again.
func TestReadPrompts(t *testing.T) {
	home := t.TempDir()
	path := harnesstest.WriteFile(t, filepath.Join(home, ".cursor", historyName), `["Summarize this repo", "add a dark mode", {"text":"x"}, "Summarize this repo"]`)
	path, _ = filepath.EvalSymlinks(path)
	d := Discover(harness.DiscoverOptions{Home: home})
	if !slices.ContainsFunc(d.Sources, func(s harness.Source) bool { return s.Path == path }) {
		t.Fatalf("sources %+v lack %s", d.Sources, path)
	}
	d = Discover(harness.DiscoverOptions{Home: t.TempDir(), Getenv: harnesstest.Env(ConfigEnv, filepath.Join(home, ".cursor"))})
	if len(d.Sources) != 1 || d.Sources[0].Path != path || d.Sources[0].Reasons[0].String() != ConfigEnv {
		t.Errorf("%s: sources %+v", ConfigEnv, d.Sources)
	}
	var r Reader
	if err := r.Sniff(path, []byte(`["Summarize this repo"]`)); err != nil {
		t.Fatalf("sniff: %v", err)
	}
	h, err := harness.ReadStore(context.Background(), r, path, harness.ParseOptions{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range h.Sessions {
		if !s.PromptOnly || s.Parent != "" || s.Marker == "" {
			t.Errorf("session %+v", s)
		}
		texts = append(texts, s.Messages[0].Text)
	}
	if want := []string{"Summarize this repo", "add a dark mode"}; !slices.Equal(texts, want) {
		t.Errorf("prompts %q, want %q", texts, want)
	}
	if want := []string{"1 line not a string (first at line 3), skipped"}; !slices.Equal(h.Warnings, want) {
		t.Errorf("warnings %q, want %q", h.Warnings, want)
	}
}
