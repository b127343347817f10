package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallAsksOnATerminal: on a terminal, deja install shows the diff
// and writes only when the answer is yes; any other answer, or none,
// leaves the file byte for byte and exits 1.
func TestInstallAsksOnATerminal(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("DEJA_DATA_DIR", filepath.Join(home, "data"))
	t.Setenv("CODEX_HOME", "")
	t.Chdir(home)
	settings := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := "{\"theme\": \"dark\"}\n"
	if err := os.WriteFile(settings, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	install := func(answer string) (string, string, error) {
		var out, errb strings.Builder
		root := newRootCmd(&IO{In: strings.NewReader(answer), Out: &out, Err: &errb, InTTY: true})
		root.SetArgs([]string{"install", "gemini"})
		err := root.ExecuteContext(context.Background())
		return out.String(), errb.String(), err
	}
	for _, answer := range []string{"n\n", "\n", "", "yes please\n"} {
		out, errs, err := install(answer)
		var ee exitError
		if !errors.As(err, &ee) || ee.code != 1 || ee.msg != "nothing changed" {
			t.Fatalf("answer %q: err %v, want exit 1 'nothing changed'", answer, err)
		}
		if !strings.Contains(out, "+  \"deja\": {") || !strings.Contains(errs, "Write 2 changes? [y/N] ") {
			t.Fatalf("answer %q: no diff or question shown:\n%s\n%s", answer, out, errs)
		}
		if b, _ := os.ReadFile(settings); string(b) != orig {
			t.Fatalf("answer %q changed the file:\n%s", answer, b)
		}
	}
	for _, answer := range []string{"y\n", "YES\n"} {
		if err := os.WriteFile(settings, []byte(orig), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := install(answer); err != nil {
			t.Fatalf("answer %q: %v", answer, err)
		}
		if b, _ := os.ReadFile(settings); !strings.Contains(string(b), `"deja"`) {
			t.Fatalf("answer %q: deja not added:\n%s", answer, b)
		}
	}
	// Nothing to change: nothing is asked.
	out, errs, err := install("")
	if err != nil || strings.Contains(errs, "[y/N]") || !strings.Contains(out, "unchanged") {
		t.Fatalf("a second install asked or failed: %v\n%s\n%s", err, out, errs)
	}
}
