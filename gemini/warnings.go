package gemini

import "fmt"

// warnings counts skipped input by what it was, so a file of a million bad
// lines yields one warning per kind, each with its count and first line.
type warnings struct {
	order []string
	count map[string]int
	first map[string]int
}

func (w *warnings) add(what string, line int) {
	if w.count == nil {
		w.count, w.first = map[string]int{}, map[string]int{}
	}
	if w.count[what] == 0 {
		w.order = append(w.order, what)
		w.first[what] = line
	}
	w.count[what]++
}

func (w *warnings) list() []string {
	var out []string
	for _, what := range w.order {
		if n := w.count[what]; n == 1 {
			out = append(out, fmt.Sprintf("skipped a %s at line %d", what, w.first[what]))
		} else {
			out = append(out, fmt.Sprintf("skipped %d of: %s, the first at line %d", n, what, w.first[what]))
		}
	}
	return out
}
