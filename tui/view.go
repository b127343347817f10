package tui

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/quote"
)

type styles struct {
	color                    bool
	dim, sel, mark, hl, head lipgloss.Style
}

func newStyles(color bool) styles {
	r := lipgloss.NewRenderer(io.Discard)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return styles{
		color: color,
		dim:   r.NewStyle().Foreground(lipgloss.Color("245")),
		sel:   r.NewStyle().Bold(true).Foreground(lipgloss.Color("255")).Background(lipgloss.Color("237")),
		mark:  r.NewStyle().Bold(true).Foreground(lipgloss.Color("212")),
		hl:    r.NewStyle().Bold(true).Foreground(lipgloss.Color("16")).Background(lipgloss.Color("220")),
		head:  r.NewStyle().Bold(true).Foreground(lipgloss.Color("39")),
	}
}

const footer = "↑↓ · tab mode · alt-p/h/t filter · ctrl-y/alt-y copy · ctrl-o session · esc quit"

// listRows is how many results the list shows at this height; each takes
// two lines.
func (m Model) listRows() int {
	avail := m.height - 4 // query, status, rule, footer
	return max(min(avail*45/100/2, 8), 1)
}

// View draws the screen: exactly height lines, none wider than width.
func (m Model) View() string {
	w, h := max(m.width, 20), max(m.height, 8)
	lines := make([]string, 0, h)
	m.input.Width = max(w-len(m.input.Prompt)-12, 1)
	query := fit(m.input.View(), w-11)
	pad := strings.Repeat(" ", max(w-11-ansi.StringWidth(query), 0))
	lines = append(lines, query+pad+" "+m.st.head.Render(fmt.Sprintf("%10s", "["+string(m.mode)+"]")))
	// The status may quote the store's note or an error naming a project.
	lines = append(lines, m.st.dim.Render(fit(quote.Line(m.status()), w)))

	rows := m.listRows()
	for i := m.offset; i < m.offset+rows; i++ {
		if i >= len(m.results) {
			lines = append(lines, "", "")
			continue
		}
		a, b := m.row(m.results[i], w, i == m.cursor)
		lines = append(lines, a, b)
	}

	lines = append(lines, m.rule(w))
	previewH := h - len(lines) - 1
	lines = append(lines, m.preview(w, previewH)...)
	lines = append(lines, m.st.dim.Render(fit(footer, w)))
	return strings.Join(lines, "\n")
}

func (m Model) status() string {
	switch {
	case m.err != nil:
		return "error: " + m.err.Error()
	case m.note != "":
		return m.note
	case strings.TrimSpace(m.input.Value()) == "":
		return "type a question, a file name or a command"
	case m.pending && m.recall == nil:
		return "searching…"
	case m.recall == nil:
		return ""
	}
	r := m.recall
	// What the filter keeps comes before the store's note on why nothing
	// matched, so a narrow screen still shows it.
	var s string
	if len(r.Results) == 0 {
		s = "nothing found"
	} else {
		s = fmt.Sprintf("%s · %s · %s", words.Count(len(r.Results), "turn"), r.RealizedMode, r.Took.Round(1e6))
	}
	if f := m.filterLabel(); f != "" {
		s += " · " + f
	}
	if len(r.Results) == 0 && r.Note != "" {
		s += ": " + r.Note
	}
	if r.FallbackReason != "" {
		s += " · keywords only: " + r.FallbackReason
	}
	if m.pending {
		s += " · searching…"
	}
	return s
}

// filterLabel says what the filter keeps: "project shop · claude · 7d".
func (m Model) filterLabel() string {
	var parts []string
	f := m.filter
	if f.Project != "" {
		parts = append(parts, "project "+projectName(f.Project))
	}
	if f.Harness != "" {
		parts = append(parts, quote.Line(f.Harness))
	}
	if f.Within > 0 {
		parts = append(parts, "last "+span(f.Within))
	}
	return strings.Join(parts, " · ")
}

func span(d time.Duration) string {
	days := int(d / (24 * time.Hour))
	switch {
	case days == 1:
		return "day"
	case days == 7:
		return "week"
	case days == 30:
		return "30 days"
	case days == 365:
		return "year"
	}
	return fmt.Sprintf("%d days", days)
}

// row is one result's two lines: when, project, harness and question; then
// its files and commands.
func (m Model) row(r recall.Result, w int, selected bool) (string, string) {
	when := "----------------"
	if !r.Started.IsZero() {
		when = r.Started.Local().Format("2006-01-02 15:04")
	}
	proj := projectName(r.Project)
	if len([]rune(proj)) > 14 {
		proj = string([]rune(proj)[:13]) + "…"
	}
	mark := "  "
	if selected {
		mark = "› "
	}
	head := fmt.Sprintf("%s%s  %-14s %-7s ", mark, when, proj, harnessOf(r.SessionID))
	q := strings.Join(strings.Fields(clean(r.User)), " ")
	if q == "" {
		q = "(no question)"
	}
	line := fit(head+q, w)
	var extra []string
	if len(r.Files) > 0 {
		extra = append(extra, "files: "+quote.Line(strings.Join(r.Files, ", ")))
	}
	if len(r.Commands) > 0 {
		extra = append(extra, "ran: "+quote.Line(strings.Join(r.Commands, "; ")))
	}
	second := m.st.dim.Render(fit("    "+strings.Join(extra, " · "), w))
	if selected {
		pad := strings.Repeat(" ", max(w-ansi.StringWidth(line), 0))
		return m.st.sel.Render(line + pad), second
	}
	return line, second
}

func (m Model) rule(w int) string {
	label := ""
	if r, ok := m.selected(); ok {
		label = fmt.Sprintf(" %s/%d · %s ", quote.Line(r.SessionID), r.Turn, projectName(r.Project))
	}
	label = fit(label, w-4)
	return m.st.dim.Render("──" + label + strings.Repeat("─", max(w-2-ansi.StringWidth(label), 0)))
}

// preview is the selected turn wrapped to the width, scrolled so the first
// line holding a query word is in view, with those words highlighted.
func (m Model) preview(w, h int) []string {
	out := make([]string, 0, h)
	r, ok := m.selected()
	if !ok {
		for len(out) < h {
			out = append(out, "")
		}
		return out
	}
	var text []string
	add := func(label, s string) {
		s = strings.TrimSpace(clean(s))
		if s == "" {
			return
		}
		for _, para := range strings.Split(s, "\n") {
			para = strings.TrimRight(para, " \t\r")
			wrapped := ansi.Wrap(label+para, w, "")
			text = append(text, strings.Split(wrapped, "\n")...)
			label = ""
		}
	}
	add("you: ", r.User)
	if r.User != "" && r.Assistant != "" {
		text = append(text, "")
	}
	add(harnessOf(r.SessionID)+": ", r.Assistant)
	if len(r.Files) > 0 {
		add("files: ", strings.Join(r.Files, ", "))
	}
	if len(r.Commands) > 0 {
		add("ran: ", strings.Join(r.Commands, "; "))
	}
	words := queryWords(m.input.Value())
	start := 0
	for i, l := range text {
		if len(matches(l, words)) > 0 {
			start = max(i-2, 0)
			break
		}
	}
	if start > 0 && len(text)-start < h {
		start = max(len(text)-h, 0)
	}
	for i := start; i < len(text) && len(out) < h; i++ {
		out = append(out, m.highlight(fit(text[i], w), words))
	}
	for len(out) < h {
		out = append(out, "")
	}
	return out
}

// queryWords are the query's words worth highlighting, lower-cased.
func queryWords(q string) []string {
	var ws []string
	for _, f := range strings.FieldsFunc(q, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '\'' || r == ','
	}) {
		f = strings.ToLower(strings.Trim(f, ".,;:!?()[]{}"))
		if len(f) >= 2 {
			ws = append(ws, f)
		}
	}
	return ws
}

// matches are the byte ranges of line where a query word occurs.
func matches(line string, words []string) [][2]int {
	lower := strings.ToLower(line)
	if len(lower) != len(line) {
		return nil
	}
	var out [][2]int
	for _, w := range words {
		for i := 0; ; {
			j := strings.Index(lower[i:], w)
			if j < 0 {
				break
			}
			out = append(out, [2]int{i + j, i + j + len(w)})
			i += j + len(w)
		}
	}
	return out
}

func (m Model) highlight(line string, words []string) string {
	ms := matches(line, words)
	if len(ms) == 0 || !m.st.color {
		return line
	}
	mark := make([]bool, len(line))
	for _, r := range ms {
		for i := r[0]; i < r[1]; i++ {
			mark[i] = true
		}
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		j := i
		for j < len(line) && mark[j] == mark[i] {
			j++
		}
		if mark[i] {
			b.WriteString(m.st.hl.Render(line[i:j]))
		} else {
			b.WriteString(line[i:j])
		}
		i = j
	}
	return b.String()
}

// clean makes what a history holds inert for the terminal (quote.Text:
// escape sequences, controls and invisible characters shown as <U+XXXX>),
// tabs as spaces, so the screen's cells can be counted.
func clean(s string) string { return strings.ReplaceAll(quote.Text(s), "\t", " ") }
