package quote

import "strings"

// Split parses Markdown as CommonMark reads fenced blocks and returns the
// text outside every backtick fence and the text inside the blocks Block
// wrote (info string "quoted"), line by line. labelled reports whether
// every such block opens right after a line starting with Label. It is how
// a test, or a hook that must not pass history on as instructions, checks
// that quoted text stayed inside its block.
func Split(md string) (outside, inside string, labelled bool) {
	var out, in strings.Builder
	labelled = true
	fence, quoted, prev := 0, false, ""
	for line := range strings.SplitSeq(md, "\n") {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		t := line[min(indent, len(line)):]
		run := len(t) - len(strings.TrimLeft(t, "`"))
		switch {
		case fence == 0 && indent <= 3 && run >= 3 && !strings.Contains(t[run:], "`"):
			fence, quoted = run, strings.TrimSpace(t[run:]) == "quoted"
			if quoted && !strings.HasPrefix(prev, Label) {
				labelled = false
			}
		case fence > 0 && indent <= 3 && run >= fence && strings.TrimSpace(t[run:]) == "":
			fence = 0
		case fence > 0 && quoted:
			in.WriteString(line + "\n")
		default:
			out.WriteString(line + "\n")
		}
		prev = line
	}
	return out.String(), in.String(), labelled
}
