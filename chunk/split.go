package chunk

import (
	"strings"
	"unicode/utf8"
)

// DefaultBudget is the most characters of one chunk's embedded text when
// no budget is configured: near 2,000, as episodic-memory found works for
// one exchange per vector.
const DefaultBudget = 2000

// Texts returns the texts to embed for a turn: the user message and the
// answer, cut to budget characters (runes). An over-long turn becomes
// several texts that each repeat the start of the user message, so every
// piece of a long answer is found together with its question.
func Texts(t Turn, budget int) []string {
	if budget <= 0 {
		budget = DefaultBudget
	}
	user := strings.TrimSpace(t.User)
	answer := strings.TrimSpace(t.Assistant)
	if user == "" && answer == "" {
		// A turn of records only: its paths and commands are all there is.
		answer = strings.Join(append(append([]string{}, t.Files...), t.Commands...), "\n")
	}
	if answer == "" && user == "" {
		return nil
	}
	if user == "" {
		return pieces(answer, budget)
	}
	if answer == "" {
		return pieces(user, budget)
	}
	if n := utf8.RuneCountInString(user) + 2 + utf8.RuneCountInString(answer); n <= budget {
		return []string{user + "\n\n" + answer}
	}
	// The question keeps at most half the budget; the answer fills the rest
	// of each chunk.
	head := cut(user, budget/2)
	room := budget - utf8.RuneCountInString(head) - 2
	var out []string
	for _, p := range pieces(answer, room) {
		out = append(out, head+"\n\n"+p)
	}
	return out
}

// pieces cuts s into parts of at most n runes, preferring to end a part at
// a line break, else at a space.
//
// Each part looks at only its own n runes: counting the runes of all that
// is left for every part made a 10 MB answer take 27 s to index.
func pieces(s string, n int) []string {
	var out []string
	for s != "" {
		head := cut(s, n)
		if len(head) == len(s) {
			out = append(out, s)
			break
		}
		if i := strings.LastIndexByte(head, '\n'); i > len(head)/2 {
			head = head[:i]
		} else if i := strings.LastIndexByte(head, ' '); i > len(head)/2 {
			head = head[:i]
		}
		out = append(out, strings.TrimSpace(head))
		s = strings.TrimSpace(s[len(head):])
	}
	return out
}

// cut returns the first n runes of s.
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
