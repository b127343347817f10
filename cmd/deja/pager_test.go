package main

import (
	"slices"
	"strings"
	"testing"
)

// TestPagerOnlyOnATerminalForLongText: show pages through $PAGER (less -R
// by default) only on a terminal, only when the text is taller than it,
// and never with --no-pager, PAGER= or PAGER=cat.
func TestPagerOnlyOnATerminalForLongText(t *testing.T) {
	long := strings.Repeat("line\n", 100)
	cases := []struct {
		paging   bool
		text     string
		pager    string
		pagerSet bool
		want     []string
	}{
		{true, long, "", false, []string{"less", "-R"}},
		{true, long, "most -s", true, []string{"most", "-s"}},
		{false, long, "", false, nil}, // piped, or --no-pager
		{true, "short\n", "", false, nil},
		{true, long, "", true, nil},
		{true, long, "cat", true, nil},
	}
	for _, c := range cases {
		if got := pagerCommand(c.paging, c.text, c.pager, c.pagerSet, 40); !slices.Equal(got, c.want) {
			t.Errorf("paging %v, %d lines, PAGER %q (set %v): %q, want %q", c.paging, strings.Count(c.text, "\n"), c.pager, c.pagerSet, got, c.want)
		}
	}
}
