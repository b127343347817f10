package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/quote"
)

// TestShowOnATerminalIsForReading: on a terminal 'deja show' labels the
// question and the answer and leaves out the agents' quoting; piped, the
// same turn is quoted as data.
func TestShowOnATerminalIsForReading(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("DEJA_DATA_DIR", filepath.Join(home, "data"))
	t.Setenv("DEJA_EMBED_PROVIDER", "builtin")
	t.Setenv("DEJA_SERVE_AUTOSTART", "false")
	t.Setenv("PAGER", "")
	hist := filepath.Join(home, "shop", ".aider.chat.history.md")
	if err := os.MkdirAll(filepath.Dir(hist), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "\n# aider chat started at 2026-08-01 09:00:00\n\n#### why do the invoice totals drift?  \n\nThey were rounded per line; now per invoice.\n\n"
	if err := os.WriteFile(hist, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(tty bool, args ...string) string {
		var out, errb strings.Builder
		root := newRootCmd(&IO{In: strings.NewReader(""), Out: &out, Err: &errb, OutTTY: tty})
		root.SetArgs(args)
		if err := root.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("deja %v: %v\n%s", args, err, errb.String())
		}
		return out.String()
	}
	run(false, "index", hist)
	id := strings.Fields(strings.Split(run(false, "sessions"), "\n")[1])[0]
	people := run(true, "show", "--no-pager", id+"/0")
	for _, want := range []string{"You: why do the invoice totals drift?", "Agent (aider): They were rounded per line; now per invoice."} {
		if !strings.Contains(people, want) {
			t.Errorf("on a terminal, show lacks %q:\n%s", want, people)
		}
	}
	if strings.Contains(people, quote.Label) {
		t.Errorf("on a terminal, show holds the agents' label:\n%s", people)
	}
	if piped := run(false, "show", id+"/0"); !strings.Contains(piped, quote.Label) || strings.Contains(piped, "Agent (aider):") {
		t.Errorf("piped, show is not quoted as data:\n%s", piped)
	}
}
