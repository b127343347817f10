// Package tui is deja's full-screen interactive search: a query line whose
// results update as you type, a list of the turns found and a preview of
// the selected one with the query's words highlighted.
package tui

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/quote"
)

// SearchFunc runs one recall; ctx is cancelled when a newer query replaces
// this one.
type SearchFunc func(ctx context.Context, query string, mode recall.Mode, f Filter) (*recall.Answer, error)

// Filter narrows the search; the zero Filter is everything.
type Filter struct {
	// Project keeps sessions of this project directory and below it.
	Project string
	// Harness keeps one agent's sessions (aider, claude, …).
	Harness string
	// Within keeps sessions started this long ago or later; 0 is any time.
	Within time.Duration
}

// spans are the time filters alt-t steps through.
var spans = []time.Duration{0, 24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour, 365 * 24 * time.Hour}

// Options configure a Model.
type Options struct {
	// Search runs the recall behind the results.
	Search SearchFunc
	// Open returns the command that shows a whole session (its pager);
	// nil disables the key.
	Open func(sessionID string) *exec.Cmd
	// Query is the initial query.
	Query string
	// Mode is the initial mode (hybrid when empty).
	Mode recall.Mode
	// Color draws with colour and highlighting; false for NO_COLOR.
	Color bool
	// Filter is the initial filter.
	Filter Filter
	// Here is the project alt-p narrows to: the one the user is in
	// ("" disables the key).
	Here string
	// Harnesses are the agents alt-h steps through.
	Harnesses []string
	// Copy puts text on the clipboard; nil disables the copy keys.
	Copy func(text string) error
	// Debounce is how long typing must pause before a query runs
	// (DefaultDebounce when zero).
	Debounce time.Duration
}

// DefaultDebounce is the pause after a keystroke before its query runs.
const DefaultDebounce = 120 * time.Millisecond

var modes = []recall.Mode{recall.Hybrid, recall.Semantic, recall.Keyword}

// Model is the search screen's state; drive it with tea.Program.
type Model struct {
	opts   Options
	input  textinput.Model
	mode   recall.Mode
	filter Filter
	note   string // what the last key did (copied …), until the next key
	st     styles
	width  int
	height int

	seq     int // the newest query's number; older answers are dropped
	cancel  context.CancelFunc
	pending bool // a query is waiting or running
	recall  *recall.Answer
	results []recall.Result
	err     error
	cursor  int
	offset  int // first result row in view

	chosen    string
	cancelled bool
}

type debounceMsg struct{ seq int }

type resultMsg struct {
	seq int
	r   *recall.Answer
	err error
}

type pagerDoneMsg struct{ err error }

type copiedMsg struct{ note string }

// New returns the search screen's first state.
func New(opts Options) Model {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	mode := opts.Mode
	if mode == "" {
		mode = recall.Hybrid
	}
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = "type to search past turns"
	in.SetValue(opts.Query)
	in.Focus()
	// A steady cursor: no redraw twice a second while nothing changes.
	in.Cursor.SetMode(cursor.CursorStatic)
	return Model{opts: opts, input: in, mode: mode, filter: opts.Filter, st: newStyles(opts.Color), width: 80, height: 24}
}

// Chosen is the picked turn as SESSION/TURN, "" when none was picked.
func (m Model) Chosen() string { return m.chosen }

// Cancelled reports that the user quit without picking a turn.
func (m Model) Cancelled() bool { return m.cancelled }

// Mode is the mode the next query runs in.
func (m Model) Mode() recall.Mode { return m.mode }

// Filter is the filter the next query runs with.
func (m Model) Filter() Filter { return m.filter }

// Init starts the first query when one was given.
func (m Model) Init() tea.Cmd {
	if strings.TrimSpace(m.input.Value()) != "" {
		return func() tea.Msg { return debounceMsg{seq: 0} }
	}
	return nil
}

// Update handles keys, window sizes and query answers.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.clampOffset()
		return m, nil
	case debounceMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		return m.startQuery()
	case resultMsg:
		if msg.seq != m.seq {
			return m, nil // an answer to a query typed over
		}
		m.pending = false
		m.err = msg.err
		m.recall = msg.r
		m.results = nil
		if msg.r != nil {
			m.results = msg.r.Results
		}
		m.cursor, m.offset = 0, 0
		return m, nil
	case pagerDoneMsg:
		if msg.err != nil {
			m.err = fmt.Errorf("pager: %w", msg.err)
		}
		return m, nil
	case copiedMsg:
		m.note = msg.note
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	m.note = ""
	switch msg.String() {
	case "ctrl+c", "esc":
		m.stop()
		m.cancelled = true
		return m, tea.Quit
	case "enter":
		if r, ok := m.selected(); ok {
			m.stop()
			m.chosen = fmt.Sprintf("%s/%d", quote.Line(r.SessionID), r.Turn)
			return m, tea.Quit
		}
		return m, nil
	case "up", "ctrl+p", "ctrl+k":
		m.move(-1)
		return m, nil
	case "down", "ctrl+n", "ctrl+j":
		m.move(1)
		return m, nil
	case "pgup":
		m.move(-m.listRows())
		return m, nil
	case "pgdown":
		m.move(m.listRows())
		return m, nil
	case "tab", "shift+tab":
		step := 1
		if msg.String() == "shift+tab" {
			step = len(modes) - 1
		}
		for i, md := range modes {
			if md == m.mode {
				m.mode = modes[(i+step)%len(modes)]
				break
			}
		}
		return m.schedule()
	case "alt+p":
		if m.opts.Here == "" && m.filter.Project == "" {
			m.note = "not in an indexed project: start find inside one, or pass --project"
			return m, nil
		}
		if m.filter.Project != "" {
			m.filter.Project = ""
		} else {
			m.filter.Project = m.opts.Here
		}
		return m.schedule()
	case "alt+h":
		m.filter.Harness = next(append([]string{""}, m.opts.Harnesses...), m.filter.Harness)
		return m.schedule()
	case "alt+t":
		m.filter.Within = next(spans, m.filter.Within)
		return m.schedule()
	case "ctrl+y", "alt+y":
		r, ok := m.selected()
		if !ok || m.opts.Copy == nil {
			return m, nil
		}
		ref := fmt.Sprintf("%s/%d", quote.Line(r.SessionID), r.Turn)
		text, what := ref, ref
		if msg.String() == "alt+y" {
			text, what = turnText(r), "the text of "+ref
		}
		copyTo := m.opts.Copy
		return m, func() tea.Msg {
			if err := copyTo(text); err != nil {
				return copiedMsg{note: "copy failed: " + err.Error()}
			}
			return copiedMsg{note: "copied " + what}
		}
	case "ctrl+o":
		r, ok := m.selected()
		if !ok || m.opts.Open == nil {
			return m, nil
		}
		return m, tea.ExecProcess(m.opts.Open(r.SessionID), func(err error) tea.Msg { return pagerDoneMsg{err} })
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() == before {
		return m, cmd
	}
	m2, sched := m.schedule()
	return m2, tea.Batch(cmd, sched)
}

// schedule numbers a new query and runs it once typing pauses.
func (m Model) schedule() (tea.Model, tea.Cmd) {
	m.seq++
	seq := m.seq
	if strings.TrimSpace(m.input.Value()) == "" {
		m.stop()
		m.recall, m.results, m.err, m.cursor, m.offset = nil, nil, nil, 0, 0
		return m, nil
	}
	m.pending = true
	return m, tea.Tick(m.opts.Debounce, func(time.Time) tea.Msg { return debounceMsg{seq: seq} })
}

// startQuery cancels the query still running and starts the newest.
func (m Model) startQuery() (tea.Model, tea.Cmd) {
	m.stop()
	q := strings.TrimSpace(m.input.Value())
	if q == "" || m.opts.Search == nil {
		return m, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.pending = true
	seq, mode, f, search := m.seq, m.mode, m.filter, m.opts.Search
	return m, func() tea.Msg {
		r, err := search(ctx, q, mode, f)
		return resultMsg{seq: seq, r: r, err: err}
	}
}

func (m *Model) stop() {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
}

func (m Model) selected() (recall.Result, bool) {
	if m.cursor < 0 || m.cursor >= len(m.results) {
		return recall.Result{}, false
	}
	return m.results[m.cursor], true
}

func (m *Model) move(d int) {
	if len(m.results) == 0 {
		return
	}
	m.cursor = min(max(m.cursor+d, 0), len(m.results)-1)
	m.clampOffset()
}

func (m *Model) clampOffset() {
	rows := m.listRows()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+rows {
		m.offset = m.cursor - rows + 1
	}
	m.offset = max(m.offset, 0)
}

// next is the element after cur in xs, wrapping to the first.
func next[T comparable](xs []T, cur T) T {
	for i, x := range xs {
		if x == cur {
			return xs[(i+1)%len(xs)]
		}
	}
	return xs[0]
}

// turnText is a turn as plain text to paste: its question, its answer,
// then its files and commands, without the control characters a history
// could hold to act on the terminal it is pasted into.
func turnText(r recall.Result) string {
	var b strings.Builder
	if u := strings.TrimSpace(clean(r.User)); u != "" {
		b.WriteString(u + "\n\n")
	}
	if a := strings.TrimSpace(clean(r.Assistant)); a != "" {
		b.WriteString(a + "\n")
	}
	if len(r.Files) > 0 {
		b.WriteString("\nfiles: " + clean(strings.Join(r.Files, ", ")) + "\n")
	}
	if len(r.Commands) > 0 {
		b.WriteString("ran: " + clean(strings.Join(r.Commands, "; ")) + "\n")
	}
	return b.String()
}

// harnessOf is a session's harness: its ID's first part (aider-, claude-),
// inert.
func harnessOf(id string) string {
	h, _, _ := strings.Cut(id, "-")
	return quote.Line(h)
}

// projectName is a project's last element, inert.
func projectName(p string) string {
	if p == "" {
		return "-"
	}
	return quote.Line(filepath.Base(p))
}

// fit cuts s, which may hold escape codes, to n cells.
func fit(s string, n int) string {
	if n <= 0 {
		return ""
	}
	return ansi.Truncate(s, n, "…")
}
