package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/deja-dev/deja/config"
)

// TestHelpNamesEveryHarness: every harness deja reads has a title and a
// configuration name, and the help of deja, index, parse, resume, mcp and
// sources names each, so a new reader cannot be left out of them.
func TestHelpNamesEveryHarness(t *testing.T) {
	var titles []string
	for _, h := range knownHarnesses() {
		title := harnessTitles[h.Name()]
		if title == "" {
			t.Errorf("harness %q has no title in harnessTitles", h.Name())
		}
		if !slices.Contains(config.HarnessNames, h.Name()) {
			t.Errorf("harness %q is not in config.HarnessNames", h.Name())
		}
		titles = append(titles, title)
	}
	if len(harnessTitles) != len(knownHarnesses()) {
		t.Errorf("%d titles for %d harnesses", len(harnessTitles), len(knownHarnesses()))
	}
	for _, cmd := range [][]string{{"--help"}, {"index", "--help"}, {"parse", "--help"}, {"resume", "--help"}, {"mcp", "--help"}, {"sources", "--help"}} {
		out, _ := deja(t, context.Background(), nil, cmd...)
		flat := strings.Join(strings.Fields(out), " ")
		for _, title := range titles {
			if !strings.Contains(flat, title) {
				t.Errorf("deja %s does not name %s", strings.Join(cmd, " "), title)
			}
		}
		if strings.Contains(out, "HARNESSES") {
			t.Errorf("deja %s shows the HARNESSES placeholder", strings.Join(cmd, " "))
		}
	}
}

// TestEveryAliasNamesAHarness: each name --harness refuses with a hint
// points at a harness deja reads, and is not itself one.
func TestEveryAliasNamesAHarness(t *testing.T) {
	for alias, h := range harnessAliases {
		if knownHarnesses().Lookup(h) == nil || knownHarnesses().Lookup(alias) != nil {
			t.Errorf("alias %q names %q", alias, h)
		}
	}
}
