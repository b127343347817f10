package redact

import (
	"strings"
	"time"
)

// aiderHeader starts the line aider writes at every session's start; a
// time follows it and nothing else (aider's io.py).
const aiderHeader = "# aider chat started at "

// Header returns a session's opening line with its secrets removed, and
// the number removed. After the time on aider's header nothing belongs:
// whatever follows it (a pasted command, a key typed at the wrong prompt)
// becomes "[redacted:header]" whole, since no rule can vouch for text
// with no context. Other harnesses' headers go through Text.
func Header(line string) (string, int) {
	rest, ok := strings.CutPrefix(line, aiderHeader)
	if !ok || len(rest) < len(headerTime) {
		return Text(line)
	}
	if _, err := time.Parse(headerTime, rest[:len(headerTime)]); err != nil {
		return Text(line)
	}
	tail := rest[len(headerTime):]
	if strings.TrimSpace(tail) == "" || tail == " "+label("header") {
		return line, 0
	}
	return aiderHeader + rest[:len(headerTime)] + " " + label("header"), 1
}

// headerTime is the layout of the time on aider's header.
const headerTime = "2006-01-02 15:04:05"
