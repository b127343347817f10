package aider

import (
	"bytes"
	"os"
	pathpkg "path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
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

// TestCorpusOutcomes checks the outcomes and spans of every real history
// against its lines, read by a separate simple scan: each /test followed
// by "Added N lines of output", each command followed by aider's error
// line, and each "SearchReplaceNoExactMatch … lines in F" is exactly one
// failed record of that command or file at that place; each "Applied
// edit to F" has one record per SEARCH/REPLACE block of the reply before
// it that names F, each with the block's new text when it has some.
func TestCorpusOutcomes(t *testing.T) {
	failedRE := regexp.MustCompile(`^(?:> )?## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in (.+?)\s*$`)
	var spans, failures int
	for _, path := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			abs, _ := filepath.Abs(path)
			h := Parse(data, Options{Path: abs})
			byLine := map[int][]harness.Record{}
			gotFailed := map[int]int{}
			for _, s := range h.Sessions {
				for _, r := range s.Records {
					byLine[r.Line] = append(byLine[r.Line], r)
					if r.Outcome.Status == harness.Failed {
						gotFailed[r.Line]++
					}
				}
			}
			wantFailed := map[int]int{}
			lines := strings.Split(string(data), "\n")
			cmdLine, cmdKind := 0, ""
			// reply is the last run of lines without aider's "> " between
			// them, after a #### line of the session: the reply before an
			// "Applied edit" line. write: a "> " line without aider's two
			// closing spaces, whose write goes on unprefixed.
			var reply []string
			tool, write, asked := false, false, false
			for i, l := range lines {
				n := i + 1
				l = strings.TrimRight(l, "\r")
				body := strings.TrimRight(strings.TrimPrefix(l, "> "), " ")
				if write {
					if failedRE.MatchString(l) {
						failures++
						wantFailed[n]++
					}
					write = !strings.HasSuffix(l, "  ")
					continue
				}
				if strings.HasPrefix(l, "> ") {
					tool, write = true, !strings.HasSuffix(l, "  ")
				}
				switch {
				case strings.HasPrefix(l, headerPrefix):
					cmdLine, cmdKind, reply, asked = 0, "", nil, false
				case strings.HasPrefix(l, "#### "):
					cmdLine, cmdKind, reply, asked = 0, "", nil, true
					word, _, _ := strings.Cut(strings.TrimSpace(l[5:]), " ")
					if strings.HasPrefix(word, "!") {
						word = "/run"
					}
					if name, _, ok := resolveCommand(strings.TrimPrefix(word, "/")); ok && strings.HasPrefix(word, "/") || word == "/run" {
						cmdLine, cmdKind = n, name
					}
				case strings.HasPrefix(l, "> ") && failedRE.MatchString(l):
					failures++
					wantFailed[n]++
				case !strings.HasPrefix(l, "> "):
					if tool {
						reply, tool = nil, false
					}
					if asked {
						reply = append(reply, l)
					}
				case cmdLine > 0 && (strings.HasPrefix(body, "Error occurred while running command ") || strings.HasPrefix(body, "Error running /git command: ") ||
					cmdKind == "test" && strings.HasPrefix(body, "Added ") && strings.HasSuffix(body, " of output to the chat.")):
					failures++
					wantFailed[cmdLine]++
					cmdLine = 0
				case strings.HasPrefix(body, "Applied edit to "):
					file := strings.ReplaceAll(strings.TrimPrefix(body, "Applied edit to "), `\`, "/")
					want, withText := 0, 0
					for _, b := range scanBlocks(reply) {
						if b[0] == file || b[0] == pathpkg.Base(file) {
							want++
							if b[1] != "" {
								withText++
							}
						}
					}
					got, gotText := 0, 0
					for _, r := range byLine[n] {
						if r.Span.Recorded() || r.Span.Old != "" {
							got++
						}
						if r.Span.New != "" {
							gotText++
						}
					}
					spans += want
					if got != want || gotText != withText {
						t.Errorf("line %d: %d spans, %d with new text; the reply has %d blocks for %s, %d with new text", n, got, gotText, want, file, withText)
					}
				}
			}
			for n, c := range wantFailed {
				if gotFailed[n] != c {
					t.Errorf("line %d: %d failed records, want %d", n, gotFailed[n], c)
				}
			}
			for n, c := range gotFailed {
				if wantFailed[n] != c {
					t.Errorf("line %d: %d failed records, the lines give %d", n, c, wantFailed[n])
				}
			}
		})
	}
	if spans < 100 || failures < 20 {
		t.Errorf("checked %d spans and %d failures: too few to mean anything", spans, failures)
	}
}

// scanBlocks is the test's own reading of a reply's SEARCH/REPLACE
// blocks: the file on the line before the fence (or inside it), and the
// replacing text.
func scanBlocks(reply []string) [][2]string {
	var out [][2]string
	file := ""
	for i := 0; i < len(reply); i++ {
		if l := strings.TrimSpace(reply[i]); l != "<<<<<<< SEARCH" && l != "<<<<<<< SEARCH>" {
			continue
		}
		for j := i - 1; j >= 0 && j >= i-3; j-- {
			c := strings.TrimSpace(reply[j])
			if strings.HasPrefix(c, "```") {
				continue
			}
			file = strings.ReplaceAll(strings.Trim(strings.TrimLeft(strings.TrimRight(c, ":"), "#"), " `*"), `\`, "/")
			break
		}
		j := i + 1
		for j < len(reply) && strings.TrimSpace(reply[j]) != "=======" {
			j++
		}
		k := j + 1
		for k < len(reply) && strings.TrimSpace(reply[k]) != ">>>>>>> REPLACE" {
			k++
		}
		if k >= len(reply) {
			break
		}
		out = append(out, [2]string{file, strings.Join(reply[j+1:k], "\n")})
		i = k
	}
	return out
}
