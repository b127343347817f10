package tui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/deja-dev/deja/memory/recall"
)

var corpus = []recall.Result{
	{SessionID: "aider-1111aaaa", Turn: 1, Project: "/home/u/shop", Started: time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC),
		User: "why does the tenant filter drop rows", Assistant: "The tenant ID was compared as a string.\nFix it in query.go.",
		Files: []string{"query.go"}},
	{SessionID: "claude-2222bbbb", Turn: 3, Project: "/home/u/infra", Started: time.Date(2026, 7, 2, 11, 0, 0, 0, time.UTC),
		User: "make the docker image smaller", Assistant: "Use a multi-stage build.", Commands: []string{"docker build ."}},
	{SessionID: "codex-3333cccc", Turn: 2, Project: "/home/u/shop", Started: time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC),
		User: "tests are flaky on CI", Assistant: "The tests share a temp dir.", Commands: []string{"go test ./..."}},
}

// fakeSearch returns the corpus turns that hold every word of the query.
func fakeSearch(ctx context.Context, q string, mode recall.Mode, f Filter) (*recall.Answer, error) {
	r := &recall.Answer{Query: q, Mode: mode, RealizedMode: mode}
	for _, res := range corpus {
		text := strings.ToLower(res.User + " " + res.Assistant + " " + strings.Join(res.Commands, " "))
		all := true
		for _, w := range strings.Fields(strings.ToLower(q)) {
			all = all && strings.Contains(text, w)
		}
		if f.Project != "" && !recall.InProject(res.Project, f.Project) || f.Harness != "" && harnessOf(res.SessionID) != f.Harness {
			all = false
		}
		if all {
			r.Results = append(r.Results, res)
		}
	}
	return r, nil
}

// run feeds the model what its commands produce, as tea.Program would,
// ignoring the cursor's blinking.
func run(t *testing.T, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0 && n < 100; n++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case debounceMsg, resultMsg:
			next, more := m.Update(msg)
			m = next.(Model)
			queue = append(queue, more)
		}
	}
	return m
}

func newTest(t *testing.T, color bool) Model {
	t.Helper()
	m := New(Options{Search: fakeSearch, Color: color, Debounce: time.Millisecond})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return next.(Model)
}

func typeText(t *testing.T, m Model, s string) Model {
	t.Helper()
	for _, r := range s {
		next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		m = run(t, next.(Model), cmd)
	}
	return m
}

func press(t *testing.T, m Model, k tea.KeyType) (Model, tea.Cmd) {
	t.Helper()
	next, cmd := m.Update(tea.KeyMsg{Type: k})
	return next.(Model), cmd
}

func plain(m Model) string { return ansi.Strip(m.View()) }

func TestTypingNarrowsResults(t *testing.T) {
	m := typeText(t, newTest(t, false), "t")
	v := plain(m)
	for _, q := range []string{"tenant filter", "docker image", "flaky on CI"} {
		if !strings.Contains(v, q) {
			t.Fatalf("after 't' the list lacks %q:\n%s", q, v)
		}
	}
	m = typeText(t, m, "enant")
	v = plain(m)
	if !strings.Contains(v, "why does the tenant filter drop rows") || !strings.Contains(v, "1 turn ·") {
		t.Fatalf("after 'tenant' the list lacks the tenant turn:\n%s", v)
	}
	if strings.Contains(v, "docker image") || strings.Contains(v, "flaky on CI") {
		t.Fatalf("after 'tenant' the list still shows other turns:\n%s", v)
	}
	if !strings.Contains(v, "files: query.go") || !strings.Contains(v, "shop") || !strings.Contains(v, "aider") {
		t.Fatalf("the row lacks its files, project or harness:\n%s", v)
	}
}

func TestPreviewHighlightsQueryWords(t *testing.T) {
	m := typeText(t, newTest(t, true), "tenant")
	v := m.View()
	hl := m.st.hl.Render("tenant")
	if hl == "tenant" {
		t.Fatal("the highlight style renders nothing in colour mode")
	}
	if !strings.Contains(v, "you: why does the "+hl+" filter") {
		t.Fatalf("the preview does not highlight the query word:\n%q", v)
	}
	if !strings.Contains(ansi.Strip(v), "aider: The tenant ID was compared") {
		t.Fatalf("the preview lacks the answer:\n%s", ansi.Strip(v))
	}
}

func TestNoColorDrawsNoEscapes(t *testing.T) {
	m := typeText(t, newTest(t, false), "tenant")
	// The text input's cursor is the one escape code allowed to remain.
	v := m.View()
	rest := strings.SplitN(v, "\n", 2)[1]
	if strings.Contains(rest, "\x1b[") {
		t.Fatalf("without colour the screen holds escape codes:\n%q", rest)
	}
}

func TestResizeTo80x24Readable(t *testing.T) {
	m := typeText(t, newTest(t, false), "t")
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		next, _ := m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m = next.(Model)
		lines := strings.Split(plain(m), "\n")
		if len(lines) != size[1] {
			t.Fatalf("at %dx%d the view has %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Fatalf("at %dx%d line %d is %d wide: %q", size[0], size[1], i, w, l)
			}
		}
		v := strings.Join(lines, "\n")
		for _, want := range []string{"[hybrid]", "3 turns", "tenant filter", "esc quit", "you: why does"} {
			if !strings.Contains(v, want) {
				t.Fatalf("at %dx%d the view lacks %q:\n%s", size[0], size[1], want, v)
			}
		}
	}
}

func TestMoveAndPick(t *testing.T) {
	m := typeText(t, newTest(t, false), "t")
	m, _ = press(t, m, tea.KeyDown)
	if !strings.Contains(plain(m), "claude-2222bbbb/3") {
		t.Fatalf("down does not select the second turn:\n%s", plain(m))
	}
	m, cmd := press(t, m, tea.KeyEnter)
	if m.Chosen() != "claude-2222bbbb/3" || cmd == nil {
		t.Fatalf("enter chose %q", m.Chosen())
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("enter does not quit")
	}
}

func TestEscCancels(t *testing.T) {
	m := typeText(t, newTest(t, false), "t")
	m, cmd := press(t, m, tea.KeyEsc)
	if !m.Cancelled() || m.Chosen() != "" {
		t.Fatal("esc did not cancel")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("esc does not quit")
	}
}

func TestTabSwitchesModeAndRequeries(t *testing.T) {
	var asked []recall.Mode
	m := New(Options{Debounce: time.Millisecond, Search: func(ctx context.Context, q string, mode recall.Mode, f Filter) (*recall.Answer, error) {
		asked = append(asked, mode)
		return fakeSearch(ctx, q, mode, f)
	}})
	m = typeText(t, m, "tenant")
	next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyTab})
	m = run(t, next.(Model), cmd)
	if m.Mode() != recall.Semantic || !strings.Contains(plain(m), "[semantic]") {
		t.Fatalf("tab gave mode %s", m.Mode())
	}
	if asked[len(asked)-1] != recall.Semantic {
		t.Fatalf("the query after tab ran as %v", asked)
	}
}

func TestNewerQueryCancelsAndWins(t *testing.T) {
	var ctxs []context.Context
	m := New(Options{Debounce: time.Millisecond, Search: func(ctx context.Context, q string, mode recall.Mode, f Filter) (*recall.Answer, error) {
		ctxs = append(ctxs, ctx)
		return fakeSearch(ctx, q, mode, f)
	}})
	// Start the query for "t" but hold its answer back.
	next, _ := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("t")})
	m = next.(Model)
	next, queryT := m.Update(debounceMsg{seq: m.seq})
	m = next.(Model)
	staleAnswer := queryT()
	m = typeText(t, m, "enant")
	if ctxs[0].Err() == nil {
		t.Fatal("the older query was not cancelled")
	}
	next, _ = m.Update(staleAnswer)
	m = next.(Model)
	if strings.Contains(plain(m), "docker image") {
		t.Fatalf("a stale answer replaced the newer one:\n%s", plain(m))
	}
}

func TestControlCodesFromHistoryAreDropped(t *testing.T) {
	m := New(Options{Debounce: time.Millisecond, Search: func(ctx context.Context, q string, mode recall.Mode, f Filter) (*recall.Answer, error) {
		return &recall.Answer{Results: []recall.Result{{SessionID: "aider-x", Turn: 1, User: "evil \x1b]0;pwned\x07 title", Assistant: "\x1b[2Jcleared"}}}, nil
	}})
	m = typeText(t, m, "evil")
	if v := m.View(); strings.Contains(v, "\x1b]") || strings.Contains(v, "\x1b[2J") {
		t.Fatalf("a history's escape codes reach the screen: %q", v)
	}
}

func TestPreviewScrollsToTheMatch(t *testing.T) {
	long := strings.Repeat("filler line about nothing in particular\n", 40) + "here the kubernetes manifest was fixed\n" + strings.Repeat("more filler\n", 5)
	m := New(Options{Debounce: time.Millisecond, Search: func(ctx context.Context, q string, mode recall.Mode, f Filter) (*recall.Answer, error) {
		return &recall.Answer{Results: []recall.Result{{SessionID: "aider-x", Turn: 1, User: "deploy", Assistant: long}}}, nil
	}})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m = typeText(t, next.(Model), "kubernetes")
	if v := plain(m); !strings.Contains(v, "here the kubernetes manifest was fixed") {
		t.Fatalf("the preview does not show the matching line:\n%s", v)
	}
}

func key(t *testing.T, m Model, k string) (Model, tea.Cmd) {
	t.Helper()
	msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k[len(k)-1:]), Alt: strings.HasPrefix(k, "alt+")}
	if msg.String() != k {
		t.Fatalf("key %q reads as %q", k, msg.String())
	}
	next, cmd := m.Update(msg)
	return next.(Model), cmd
}

// TestFilterKeysNarrowAndSay: alt-p narrows to the project find started
// in and back, alt-h steps through the agents, alt-t through the time
// spans; each query runs again with the filter, and the status line says
// what is filtered out.
func TestFilterKeysNarrowAndSay(t *testing.T) {
	var last Filter
	m := New(Options{Debounce: time.Millisecond, Here: "/home/u/shop", Harnesses: []string{"aider", "claude", "codex"},
		Search: func(ctx context.Context, q string, mode recall.Mode, f Filter) (*recall.Answer, error) {
			last = f
			return fakeSearch(ctx, q, mode, f)
		}})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m = typeText(t, next.(Model), "t")
	if !strings.Contains(plain(m), "3 turns") {
		t.Fatalf("unfiltered:\n%s", plain(m))
	}
	m, cmd := key(t, m, "alt+p")
	m = run(t, m, cmd)
	v := plain(m)
	if last.Project != "/home/u/shop" || !strings.Contains(v, "2 turns") || !strings.Contains(v, "project shop") || strings.Contains(v, "docker image") {
		t.Fatalf("alt-p did not narrow to this project (filter %+v):\n%s", last, v)
	}
	m, cmd = key(t, m, "alt+h")
	m = run(t, m, cmd)
	v = plain(m)
	if last.Harness != "aider" || !strings.Contains(v, "1 turn ·") || !strings.Contains(v, "project shop · aider") {
		t.Fatalf("alt-h did not narrow to aider (filter %+v):\n%s", last, v)
	}
	m, cmd = key(t, m, "alt+h")
	m = run(t, m, cmd)
	if v = plain(m); last.Harness != "claude" || !strings.Contains(v, "nothing found") || !strings.Contains(v, "claude") {
		t.Fatalf("a filter that keeps nothing must say which filter (filter %+v):\n%s", last, v)
	}
	for range 2 { // codex, then every agent again
		m, cmd = key(t, m, "alt+h")
		m = run(t, m, cmd)
	}
	if last.Harness != "" {
		t.Fatalf("alt-h does not come back to every agent: %+v", last)
	}
	m, cmd = key(t, m, "alt+t")
	m = run(t, m, cmd)
	if last.Within != 24*time.Hour || !strings.Contains(plain(m), "last day") {
		t.Fatalf("alt-t did not filter to the last day (filter %+v):\n%s", last, plain(m))
	}
	for range len(spans) - 1 {
		m, cmd = key(t, m, "alt+t")
		m = run(t, m, cmd)
	}
	m, cmd = key(t, m, "alt+p")
	m = run(t, m, cmd)
	if last != (Filter{}) || !strings.Contains(plain(m), "3 turns") || m.Filter() != (Filter{}) {
		t.Fatalf("the filters do not come back to everything: %+v\n%s", last, plain(m))
	}
}

func TestProjectKeyOutsideAnIndexedProjectSaysSo(t *testing.T) {
	m := typeText(t, newTest(t, false), "t")
	m, cmd := key(t, m, "alt+p")
	if cmd != nil || m.Filter().Project != "" || !strings.Contains(plain(m), "not in an indexed project") {
		t.Fatalf("alt-p without a project:\n%s", plain(m))
	}
}

// TestCopyKeys: ctrl-y copies the selected turn's SESSION/TURN, alt-y its
// text, and the status line says so (or why it failed).
func TestCopyKeys(t *testing.T) {
	var copied []string
	fail := false
	m := New(Options{Debounce: time.Millisecond, Search: fakeSearch, Copy: func(s string) error {
		if fail {
			return errors.New("no clipboard")
		}
		copied = append(copied, s)
		return nil
	}})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m = typeText(t, next.(Model), "tenant")
	for _, k := range []string{"ctrl+y", "alt+y"} {
		var msg tea.KeyMsg
		if k == "ctrl+y" {
			msg = tea.KeyMsg{Type: tea.KeyCtrlY}
		} else {
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y"), Alt: true}
		}
		next, cmd := m.Update(msg)
		if cmd == nil {
			t.Fatalf("%s does nothing", k)
		}
		next, _ = next.(Model).Update(cmd())
		m = next.(Model)
	}
	want := []string{"aider-1111aaaa/1", "why does the tenant filter drop rows\n\nThe tenant ID was compared as a string.\nFix it in query.go.\n\nfiles: query.go\n"}
	if !slices.Equal(copied, want) {
		t.Fatalf("copied %q, want %q", copied, want)
	}
	if v := plain(m); !strings.Contains(v, "copied the text of aider-1111aaaa/1") {
		t.Fatalf("the status does not say what was copied:\n%s", v)
	}
	fail = true
	next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyCtrlY})
	next, _ = next.(Model).Update(cmd())
	if v := plain(next.(Model)); !strings.Contains(v, "copy failed: no clipboard") {
		t.Fatalf("a failed copy is not said:\n%s", v)
	}
}

// TestCopiedTextHoldsNoControlCodes: a turn copied with alt-y shows the
// escape and control codes its history held as text (quote.Text), which
// would act on the terminal it is pasted into.
func TestCopiedTextHoldsNoControlCodes(t *testing.T) {
	got := turnText(recall.Result{User: "run \x1b]0;pwned\x07 this", Assistant: "ok\x1b[2J\r\ndone", Commands: []string{"rm -rf /tmp/x\x1b[A"}})
	if strings.ContainsAny(got, "\x1b\x07\r") {
		t.Fatalf("copied text holds control codes: %q", got)
	}
	if !strings.Contains(got, "run <U+001B>]0;pwned<U+0007> this") || !strings.Contains(got, "ok<U+001B>[2J\ndone") {
		t.Fatalf("copied text lost its words: %q", got)
	}
}
