package recall

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippet is the passage of text, at most n runes on one line, that holds
// the most of the query's words: what a result shows of a long answer
// instead of its opening, which is often a file name or an edit block
// ("<<<<<<< SEARCH"). Lines of edit markers and code fences are passed
// over; with no word of the query in the text it is the first line of prose.
// Words match case aside and without their commonest endings, so
// "retrying" finds "retries" as the keyword index's stemming does.
func Snippet(text, query string, n int) string {
	if n <= 0 {
		return ""
	}
	want := map[string]bool{}
	for _, w := range words(query) {
		if !stopword[w] {
			want[stem(w)] = true
		}
	}
	// Lines inside a code fence or an edit block are code: a reader knows
	// a turn by its prose, so prose wins a tie.
	type textLine struct {
		text string
		code bool
	}
	var lines []textLine
	fence, edit := false, false
	for _, l := range strings.Split(text, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		switch {
		case strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~"):
			fence = !fence
		case strings.HasPrefix(l, "<<<<<<<"):
			edit = true
		case strings.HasPrefix(l, ">>>>>>>"):
			edit = false
		case l != "" && !markerLine(l):
			lines = append(lines, textLine{l, fence || edit})
		}
	}
	if len(lines) == 0 {
		return ""
	}
	// Score each line by the query words it holds, and pick the best; its
	// window starts a little before the first match. With no match, the
	// first prose line.
	best, bestScore := 0, 0
	for i, l := range lines {
		sc := 2 * matches(l.text, want)
		if !l.code {
			sc++
		}
		if sc > bestScore && (sc > 1 || bestScore == 0 && !l.code) {
			best, bestScore = i, sc
		}
	}
	var parts []string
	for _, l := range lines[best:] {
		if l.code == lines[best].code {
			parts = append(parts, l.text)
		}
	}
	line := strings.Join(parts, " ")
	bestScore /= 2
	if bestScore > 0 {
		if at := firstMatch(line, want); at > n/4 {
			// Start at a word boundary a quarter of the window before it.
			cut := strings.LastIndexByte(line[:at-n/4], ' ')
			if cut > 0 {
				line = "…" + line[cut+1:]
			}
		}
	}
	if utf8.RuneCountInString(line) <= n {
		return line
	}
	r := []rune(line)[:n-1]
	if i := strings.LastIndexByte(string(r), ' '); i > len(string(r))/2 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}

// SnippetWords are the spans of s (byte offsets, start and end) that are
// words of the query, as Snippet matches them: what a terminal highlights.
func SnippetWords(s, query string) [][2]int {
	want := map[string]bool{}
	for _, w := range words(query) {
		if !stopword[w] {
			want[stem(w)] = true
		}
	}
	var spans [][2]int
	start := -1
	for i, r := range s + " " {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if want[stem(strings.ToLower(s[start:i]))] {
				spans = append(spans, [2]int{start, i})
			}
			start = -1
		}
	}
	return spans
}

// stem is a word without its commonest English endings (retrying,
// retries, retried and retry are one), a crude stand-in for the porter
// stemmer the keyword index uses.
func stem(w string) string {
	for _, e := range []struct{ suffix, with string }{{"ies", "y"}, {"ied", "y"}, {"ing", ""}, {"es", ""}, {"ed", ""}, {"s", ""}} {
		if strings.HasSuffix(w, e.suffix) && len(w)-len(e.suffix) >= 3 {
			return strings.TrimSuffix(w, e.suffix) + e.with
		}
	}
	return w
}

func matches(line string, want map[string]bool) int {
	n := 0
	seen := map[string]bool{}
	for _, w := range words(line) {
		if s := stem(w); want[s] && !seen[s] {
			seen[s] = true
			n++
		}
	}
	return n
}

func firstMatch(line string, want map[string]bool) int {
	start := -1
	for i, r := range line + " " {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if want[stem(strings.ToLower(line[start:i]))] {
				return start
			}
			start = -1
		}
	}
	return -1
}

// markerLine is a line of an edit block or a code fence, which says nothing
// a reader recognises a turn by.
func markerLine(l string) bool {
	for _, m := range []string{"<<<<<<<", "=======", ">>>>>>>", "```", "~~~"} {
		if strings.HasPrefix(l, m) {
			return true
		}
	}
	return false
}
