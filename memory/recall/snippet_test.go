package recall

import (
	"strings"
	"testing"
)

// TestSnippetShowsTheMatchingPassage: a result shows the part of a long
// answer that holds the query's words, not an edit block's opening, and
// stays within its width, cut at a word.
func TestSnippetShowsTheMatchingPassage(t *testing.T) {
	answer := "aider/sendchat.py\n```python\n<<<<<<< SEARCH\n    retries = 0\n=======\n    retries = 5\n>>>>>>> REPLACE\n```\n" +
		"I changed the loop. " + strings.Repeat("Some unrelated words about the rest of the change. ", 6) +
		"\nThe backoff decorator was not catching litellm's APIConnectionError, so retrying never happened."
	got := Snippet(answer, "why isn't backoff retrying", 80)
	if !strings.Contains(got, "backoff decorator was not catching") || strings.Contains(got, "SEARCH") {
		t.Errorf("snippet %q: want the backoff passage", got)
	}
	if n := len([]rune(got)); n > 80 {
		t.Errorf("snippet of %d runes, want at most 80", n)
	}
	// No word of the query: the first line of prose, past the edit block.
	got = Snippet(answer, "zzqq", 40)
	if !strings.HasPrefix(got, "aider/sendchat.py") || strings.Contains(got, "<<<") {
		t.Errorf("snippet %q", got)
	}
	if got := Snippet("```\n<<<<<<< SEARCH\n```", "x", 40); got != "" {
		t.Errorf("markers only: %q", got)
	}
	// A match far into a long line starts the window near it.
	long := strings.Repeat("filler ", 60) + "the tenant predicate is missing " + strings.Repeat("more ", 30)
	got = Snippet(long, "tenant", 60)
	if !strings.HasPrefix(got, "…") || !strings.Contains(got, "tenant predicate") {
		t.Errorf("snippet %q", got)
	}
	spans := SnippetWords("Retry the Backoff, retrying", "backoff retries")
	if len(spans) != 3 {
		t.Errorf("spans %v, want Retry, Backoff and retrying", spans)
	}
}
