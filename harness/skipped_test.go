package harness

import "testing"

// TestSkippedLine: a warning never reads "skipped 1 a file".
func TestSkippedLine(t *testing.T) {
	for _, c := range []struct {
		n    int
		what string
		want string
	}{
		{1, "a file whose JSON breaks off", "skipped a file whose JSON breaks off"},
		{3, "a message of another shape", "skipped a message of another shape (3 times)"},
		{1, "an entry of no kind", "skipped an entry of no kind"},
		{2, "entries that are not objects", "skipped 2 entries that are not objects"},
	} {
		if got := SkippedLine(c.n, c.what); got != c.want {
			t.Errorf("SkippedLine(%d, %q) = %q, want %q", c.n, c.what, got, c.want)
		}
	}
}
