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
			out = append(out, fmt.Sprintf("line %d: %s", w.first[what], what))
		} else {
			out = append(out, fmt.Sprintf("line %d: %s (%d times, this the first)", w.first[what], what, n))
		}
	}
	return out
}
