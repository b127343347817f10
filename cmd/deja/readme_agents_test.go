package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deja-dev/deja/config"
)

// The README's agent table is where a newcomer learns which agents deja
// reads and what each gets; it must keep up with the readers. Every
// harness has a row, every row says yes, no or not yet for each way an
// agent reaches deja, and the counts the sentence above it gives are the
// table's own.
func TestReadmeAgentTableCoversEveryHarness(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var header []string
	var rows [][]string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		switch {
		case cells[0] == "agent" && len(cells) > 10:
			header = cells
		case header != nil && len(cells) == len(header):
			rows = append(rows, cells)
		}
	}
	if header == nil {
		t.Fatal("README.md has no agent table (a header row beginning '| agent |' with the wiring columns)")
	}
	want := []string{"agent", "versions checked", "formats read", "recall", "MCP", "per-prompt", "session start", "before a tool", "after compaction", "skill", "guidance", "resume"}
	if strings.Join(header, "|") != strings.Join(want, "|") {
		t.Fatalf("agent table columns %q, want %q", header, want)
	}

	agents, formats := 0, 0
	for _, r := range rows {
		for i, c := range r[3:] {
			if !regexp.MustCompile(`^(yes|no|not yet)\b`).MatchString(c) {
				t.Errorf("%s, %s: %q opens with neither yes, no nor not yet", r[0], header[3+i], c)
			}
		}
		if r[1] == "" || r[2] == "" {
			t.Errorf("%s: no versions or formats", r[0])
		}
		if strings.HasPrefix(r[3], "no") {
			continue // found and reported, not read
		}
		agents += len(strings.Split(r[0], ", "))
		if !strings.HasPrefix(r[2], "the format of ") {
			formats += len(strings.Split(r[2], "; "))
		}
	}
	for _, name := range config.HarnessNames {
		title, _, _ := strings.Cut(harnessTitles[name], " (")
		found := false
		for _, r := range rows {
			for _, a := range strings.Split(r[0], ", ") {
				found = found || a == title || strings.HasPrefix(a, title+" ")
			}
		}
		if !found {
			t.Errorf("harness %s (%s) has no row in README.md's agent table", name, title)
		}
	}

	m := regexp.MustCompile(`deja reads (\d+) agents in (\d+) on-disk formats`).FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("README.md does not say how many agents and formats deja reads ('deja reads N agents in M on-disk formats')")
	}
	if n, _ := strconv.Atoi(m[1]); n != agents {
		t.Errorf("README.md says deja reads %d agents; its table names %d", n, agents)
	}
	if n, _ := strconv.Atoi(m[2]); n != formats {
		t.Errorf("README.md says %d formats; its table lists %d", n, formats)
	}
}
