package aider

import (
	"bytes"
	"strings"
)

// command handles a block whose first line starts with "/" or "!". It
// reports false when the block is not one of aider's commands.
func (p *parser) command(lines [][]byte) bool {
	first := lines[0]
	var name string
	var args []byte
	if first[0] == '!' {
		name, args = "run", first[1:]
	} else {
		word := first[1:]
		if i := bytes.IndexAny(word, " \t"); i >= 0 {
			word, args = word[:i], word[i:]
		}
		resolved, ambiguous, ok := resolveCommand(string(word))
		if !ok {
			return false
		}
		if ambiguous {
			return true
		}
		name = resolved
	}
	rest := string(bytes.TrimSpace(args))
	if len(lines) > 1 {
		rest = strings.TrimSpace(rest + "\n" + joinLines(lines[1:]))
	}
	p.cmd = ranCommand{}
	switch name {
	case "run", "test":
		if rest != "" {
			p.addRecord(CommandRecord, p.clean(rest), p.userLine)
			p.cmd = ranCommand{kind: name, line: p.userLine}
		}
	case "git":
		if rest != "" {
			p.addRecord(CommandRecord, p.clean("git "+rest), p.userLine)
			p.cmd = ranCommand{kind: name, line: p.userLine}
		}
	}
	return true
}

// isConfirmAnswer matches the lines a ConfirmGroup answers by itself once
// the user chose All or Skip all (io.py, since v0.53.0):
// "#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all".
func isConfirmAnswer(lines [][]byte) bool {
	if len(lines) != 1 {
		return false
	}
	l := lines[0]
	i := bytes.Index(l, []byte("? (Y)es/(N)o"))
	if i < 0 {
		return false
	}
	j := bytes.LastIndex(l, []byte("]: "))
	return j > i && bytes.IndexByte(l[j+3:], ' ') < 0
}

// helpQuestion recovers the question from the prompt /help Q logs in Q's
// place: "# Question: Q", "# Relevant docs:", the docs, the announcements.
func helpQuestion(lines [][]byte) ([]byte, bool) {
	q, ok := bytes.CutPrefix(lines[0], []byte("# Question:"))
	if !ok || len(lines) < 3 {
		return nil, false
	}
	for _, l := range lines[1:min(4, len(lines))] {
		if bytes.HasPrefix(l, []byte("# Relevant docs:")) {
			return bytes.TrimSpace(q), true
		}
	}
	return nil, false
}

// isLintReport matches the report /lint sends to the model as a ####
// block (lint_coder.run); the user did not type it.
func isLintReport(first []byte) bool {
	return bytes.Equal(bytes.TrimRight(first, " "), []byte("# Fix any errors below, if possible."))
}

func joinLines(lines [][]byte) string {
	n := len(lines) - 1
	for _, l := range lines {
		n += len(l)
	}
	var b strings.Builder
	b.Grow(n)
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.Write(l)
	}
	return b.String()
}

// sameText compares two texts line by line, ignoring trailing spaces on
// each line and blank lines at either end.
func sameText(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if len(a) > len(b)+len(b)/4+16 || len(b) > len(a)+len(a)/4+16 {
		return false
	}
	for a != "" || b != "" {
		var la, lb string
		la, a, _ = strings.Cut(a, "\n")
		lb, b, _ = strings.Cut(b, "\n")
		if strings.TrimRight(la, " \t\r") != strings.TrimRight(lb, " \t\r") {
			return false
		}
	}
	return true
}
