package aider

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// corpusDir holds the 23 real histories beside the repository; a user's
// clone has none, so the tests that read it skip.
const corpusDir = "../../shared/aider/corpus"

func corpusFiles(t testing.TB) []string {
	return harnesstest.CorpusFiles(t, corpusDir, "*.md")
}

// expectedWarnings are the warnings real files earn.
var expectedWarnings = map[string][]string{
	"unknown-repo__id28557635781__history.md": {"trailing whitespace was stripped from this file: message boundaries are inferred"},
}

func TestCorpus(t *testing.T) {
	total := 0
	for _, path := range corpusFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			abs, _ := filepath.Abs(path)
			h := Parse(data, Options{Path: abs})
			total += len(h.Sessions)

			if got, want := strings.Join(h.Warnings, "; "), strings.Join(expectedWarnings[name], "; "); got != want {
				t.Errorf("warnings = %q, want %q", got, want)
			}
			headers := 0
			for _, l := range bytes.Split(data, []byte("\n")) {
				if bytes.HasPrefix(l, []byte(headerPrefix)) {
					headers++
				}
			}
			want := headers
			if len(h.Sessions) > 0 && h.Sessions[0].Header == "" {
				want++
				if !hasUser(&h.Sessions[0]) {
					t.Errorf("headerless leading session without a user message")
				}
			}
			if len(h.Sessions) != want {
				t.Errorf("%d sessions, want %d (%d headers)", len(h.Sessions), want, headers)
			}
			checkUserLines(t, data, h)
			for _, s := range h.Sessions {
				for _, m := range s.Messages {
					for _, l := range strings.Split(m.Text, "\n") {
						if strings.HasPrefix(l, headerPrefix) {
							t.Errorf("%s line %d: message holds a session header", s.ID, m.Line)
						}
						if m.Role == Assistant && !h.Stripped && isToolLine([]byte(l)) && strings.HasSuffix(l, "  ") {
							t.Errorf("%s line %d: assistant message holds tool line %q", s.ID, m.Line, l)
						}
					}
				}
			}
		})
	}
	if total < 1206 {
		t.Errorf("corpus holds %d sessions, want at least the 1,206 headers", total)
	}
}

// checkUserLines checks that every #### block a person typed lands in
// exactly one user message, whole, and that no message takes lines from
// elsewhere. Blocks that are commands, empty submissions or aider's own
// synthetic prompts are accounted for by simple rules of their own.
func checkUserLines(t *testing.T, data []byte, h *History) {
	t.Helper()
	lines := strings.Split(string(data), "\n")
	byLine := map[int]Message{}
	for _, s := range h.Sessions {
		for _, m := range s.Messages {
			if m.Role == User {
				if _, dup := byLine[m.Line]; dup {
					t.Errorf("two messages start at line %d", m.Line)
				}
				byLine[m.Line] = m
			}
		}
	}
	used := map[int]bool{}
	for ln, m := range byLine {
		if strings.HasPrefix(lines[ln-1], "#### # Question:") {
			// /help Q: the question alone is kept from aider's prompt.
			for at := ln; at <= len(lines) && strings.HasPrefix(lines[at-1], "####"); at++ {
				used[at] = true
			}
			continue
		}
		for i, want := range strings.Split(m.Text, "\n") {
			at := ln + i
			if at-1 >= len(lines) {
				t.Errorf("message at line %d runs past the end", ln)
				break
			}
			got := strings.TrimSuffix(lines[at-1], "\r")
			if !strings.HasPrefix(got, "#### ") && got != "####" {
				t.Errorf("line %d of message at %d is %q, not a #### line", at, ln, got)
				break
			}
			if strings.TrimSuffix(strings.TrimPrefix(got, "#### "), "  ") != want && got != "####" {
				t.Errorf("line %d is %q, message has %q", at, got, want)
			}
			used[at] = true
		}
	}
	if h.Stripped {
		return
	}
	// Every "#### …  " line outside messages must be explained.
	unexplained := 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "#### ") || !strings.HasSuffix(l, "  ") || used[i+1] {
			continue
		}
		start := i
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "#### ") && !used[i+2] {
			i++
		}
		first := strings.TrimSuffix(strings.TrimPrefix(lines[start], "#### "), "  ")
		switch {
		case strings.HasPrefix(first, "/"), strings.HasPrefix(first, "!"), first == "<blank>", strings.TrimSpace(first) == "",
			strings.Contains(first, "? (Y)es/(N)o"), strings.HasPrefix(first, "# Fix any errors below"):
			continue
		}
		block := make([]string, 0, i-start+1)
		for _, l := range lines[start : i+1] {
			block = append(block, strings.TrimSuffix(strings.TrimPrefix(l, "#### "), "  "))
		}
		if prev, ok := assistantBefore(h, start+1); ok && sameText(strings.Join(block, "\n"), prev) {
			continue // architect answer re-logged for the editor
		}
		unexplained++
		if unexplained <= 10 {
			t.Logf("block at line %d not in any message: %.80q", start+1, first)
		}
	}
	if unexplained > 0 {
		t.Errorf("%d typed #### blocks are in no message", unexplained)
	}
}

// assistantBefore returns the last assistant message that starts before line.
func assistantBefore(h *History, line int) (string, bool) {
	text, found := "", false
	for _, s := range h.Sessions {
		for _, m := range s.Messages {
			if m.Role == Assistant && m.Line < line {
				text, found = m.Text, true
			}
		}
	}
	return text, found
}
