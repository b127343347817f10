package harness

import (
	"bytes"
	"path"
	"strconv"
	"strings"
)

// Lines walks the lines of a JSONL history. An unterminated last line is
// returned with Partial set: the agent may still be writing it, so a reader
// parses it only when it is complete JSON, and otherwise stops before it
// without a warning (see FileReader).
type Lines struct {
	data []byte
	pos  int
	n    int
	// base is where data starts in what is walked (ParseStream's chunks).
	base int
	// Line is the current line without its line end; Number is 1-based
	// and Offset is its byte offset in what is walked.
	Line    []byte
	Number  int
	Offset  int
	Partial bool
}

// NewLines returns a walk over data.
func NewLines(data []byte) *Lines { return &Lines{data: data} }

// Next moves to the next line and reports whether there is one.
func (l *Lines) Next() bool {
	if l.pos >= len(l.data) {
		return false
	}
	l.n++
	l.Number, l.Offset = l.n, l.base+l.pos
	rest := l.data[l.pos:]
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		l.Line, l.Partial, l.pos = rest, true, len(l.data)
	} else {
		l.Line, l.Partial, l.pos = rest[:i], false, l.pos+i+1
	}
	l.Line = bytes.TrimSuffix(l.Line, []byte("\r"))
	return true
}

// End is the offset just past the current line.
func (l *Lines) End() int { return l.base + l.pos }

// RelPath writes p relative to the session's working directory cwd when it
// lies under it, with "/" separators; other paths are returned cleaned.
func RelPath(cwd, p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if strings.IndexByte(p, '\\') >= 0 {
		p = strings.ReplaceAll(p, `\`, "/")
		cwd = strings.ReplaceAll(cwd, `\`, "/")
	}
	p = path.Clean(p)
	cwd = strings.TrimSuffix(path.Clean(cwd), "/")
	if cwd != "" && cwd != "." && strings.HasPrefix(p, cwd+"/") {
		return p[len(cwd)+1:]
	}
	return p
}

// Warnings counts a reader's skipped input by kind, so a history with a
// thousand bad lines yields one warning per kind, not a thousand.
type Warnings struct {
	order []string
	count map[string]int
	first map[string]int
}

// Add counts one skipped line of the given kind ("not valid JSON",
// `unknown record type "x"`) at 1-based line n.
func (w *Warnings) Add(kind string, n int) {
	if w.count == nil {
		w.count, w.first = map[string]int{}, map[string]int{}
	}
	if _, ok := w.count[kind]; !ok {
		w.order = append(w.order, kind)
		w.first[kind] = n
	}
	w.count[kind]++
}

// List returns one line per kind: "2 lines not valid JSON (first at line
// 7), skipped".
func (w *Warnings) List() []string {
	var out []string
	for _, k := range w.order {
		n := w.count[k]
		noun := "lines"
		if n == 1 {
			noun = "line"
		}
		out = append(out, strconv.Itoa(n)+" "+noun+" "+k+" (first at line "+strconv.Itoa(w.first[k])+"), skipped")
	}
	return out
}
