package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPromptPlaceholder pins the placeholders of Claude Code's prompt
// history that deja knows, and what is none.
func TestPromptPlaceholder(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    string
		text bool
		size int
	}{
		{"[Pasted text #2 +40 lines] rest", "2", true, 26},
		{"[Pasted text #1]", "1", true, 16},
		{"[Pasted text #3 +1 line]", "3", true, 24},
		{"[...Truncated text #3 +200 lines.]", "3", true, 34},
		{"[Image #1]", "1", false, 10},
		{"[Pasted text #]", "", false, 0},
		{"[Pasted text #2 +x lines]", "", false, 0},
		{"[Pasted text #2", "", false, 0},
		{"[Pasted text #2 and more]", "", false, 0},
		{"[link](x)", "", false, 0},
	} {
		n, text, size := PromptPlaceholder(c.in)
		if n != c.n || text != c.text || size != c.size {
			t.Errorf("PromptPlaceholder(%q) = %q %v %d, want %q %v %d", c.in, n, text, size, c.n, c.text, c.size)
		}
	}
}

// TestHoldsPromptParts pins the comparison of a prompt whose paste the
// history no longer has with the turn that holds the paste: the parts
// around the placeholder, in order; exactly, or within the turn.
func TestHoldsPromptParts(t *testing.T) {
	parts := PromptParts("why  does [Pasted text #1 +3 lines] fail\n[Image #2]")
	if want := []string{"why does", "fail", ""}; !slices.Equal(parts, want) {
		t.Fatalf("parts %q, want %q", parts, want)
	}
	for _, c := range []struct {
		text         string
		within, want bool
	}{
		{"why does GET /x 500 fail", false, true},
		{"why does fail", false, true},
		{"so why does it fail", false, false},
		{"so why does it fail", true, true},
		{"why does it pass", true, false},
		{"fail why does", true, false},
	} {
		if got := HoldsPromptParts(c.text, parts, c.within); got != c.want {
			t.Errorf("HoldsPromptParts(%q, within %v) = %v, want %v", c.text, c.within, got, c.want)
		}
	}
	one := PromptParts("fix the  build")
	if !HoldsPromptParts("fix the build", one, false) || HoldsPromptParts("please fix the build", one, false) || !HoldsPromptParts("please fix the build", one, true) {
		t.Error("a prompt with no placeholder is compared as it is")
	}
	if ends := PromptParts("[Pasted text #1] and [Pasted text #2]"); !HoldsPromptParts("a and b", ends, false) || HoldsPromptParts("a or b", ends, false) {
		t.Errorf("parts %q: placeholders at both ends", ends)
	}
}

// TestPromptHistoryDefaultReasonNamesFile: a prompt history found in an
// agent's default folder is reported by its file ("~/.cursor/
// prompt_history.json"), whether the reader's reason names the folder or
// the file already; other reasons (a variable, a config key) are kept.
func TestPromptHistoryDefaultReasonNamesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prompt_history.json")
	if err := os.WriteFile(path, []byte(`["hello"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    Reason
		want string
	}{
		{Reason{Kind: "default", From: dir, Name: "~/.cursor"}, "~/.cursor/prompt_history.json"},
		{Reason{Kind: "default", From: dir, Name: "~/.cursor/prompt_history.json"}, "~/.cursor/prompt_history.json"},
		{Reason{Kind: "env", From: dir, Name: "CURSOR_CONFIG_DIR"}, "CURSOR_CONFIG_DIR"},
		{Reason{Kind: "config", From: dir, Name: "cursor.dirs"}, "cursor.dirs"},
	} {
		var f Finder
		f.AddPromptHistory(path, c.r)
		d := f.Result()
		if len(d.Sources) != 1 || len(d.Sources[0].Reasons) != 1 || d.Sources[0].Reasons[0].String() != c.want {
			t.Errorf("AddPromptHistory(%v): sources %+v, want one reason %q", c.r, d.Sources, c.want)
		}
	}
}
