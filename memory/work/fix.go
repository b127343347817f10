package work

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// Step is one command run after an error.
type Step struct {
	Ref     string         `json:"ref"`
	Command string         `json:"command"`
	Status  harness.Status `json:"status,omitempty"`
	Exit    *int           `json:"exit,omitempty"`
}

// FixItem is a session where an error appeared in a command's output, and
// what was run after it.
type FixItem struct {
	// Turn is where the error last appeared in the session.
	Turn
	// Command is the run whose output held the error, Exit its exit status,
	// Line the output's line that holds it.
	Command string `json:"command"`
	Exit    *int   `json:"exit,omitempty"`
	Line    string `json:"line"`
	// Fixed says the same invocation ran again later in the session and
	// the error did not come back; Confirmed is that run.
	Fixed     bool  `json:"fixed"`
	Confirmed *Step `json:"confirmed,omitempty"`
	// Next are the commands run after the error, up to Confirmed (or the
	// first few when it never was), and Edited the files edited meanwhile.
	Next   []Step   `json:"next"`
	Edited []string `json:"edited,omitempty"`
}

// fixSteps bounds what a fix lists of what came next, and fixTurns how
// far into the session it looks for the error not coming back.
const (
	fixSteps = 8
	fixTurns = 12
)

// Fix returns the sessions where a command's output held text (case and
// spacing aside), the fixed ones first, newest first, at most limit.
func Fix(ctx context.Context, s *store.Store, sc recall.Scope, text string, limit int) ([]FixItem, error) {
	want := normal(text)
	if want == "" {
		return nil, nil
	}
	cond, args := `w.work IS NOT NULL`, []any(nil)
	if probe := longestWord(text); probe != "" {
		cond, args = cond+` AND instr(lower(unpack(w.work)), ?) > 0`, []any{strings.ToLower(probe)}
	}
	done := map[string]bool{}
	var out []FixItem
	err := scanRows(ctx, s, sc, cond, args, candidates, withOutputs, func(r row) error {
		if done[r.Session] {
			return nil
		}
		// The session's last run whose output holds the error.
		at := -1
		for i, x := range r.work.Runs {
			if strings.Contains(normal(x.Output), want) {
				at = i
			}
		}
		if at < 0 {
			return nil
		}
		done[r.Session] = true
		it, err := after(ctx, s, r, at, want)
		if err != nil {
			return err
		}
		out = append(out, it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Fixed first; rows came newest first. (sort's one shared sorter, not
	// a generic one per type: the binary's size is budgeted.)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Fixed && !out[j].Fixed })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// after follows the session around the run at of row r, the newest run
// whose output held the error: what ran after it, until a command of an
// invocation that printed the error (here or in the turns before) ran
// and worked without printing it.
func after(ctx context.Context, s *store.Store, r row, at int, want string) (FixItem, error) {
	failed := r.work.Runs[at]
	it := FixItem{Turn: r.Turn, Command: failed.Command, Exit: failed.Exit, Line: lineHolding(failed.Output, want), Next: []Step{}}
	from := max(r.Index-fixTurns, -1)
	rows, err := sessionRows(ctx, s, r.Session, from, r.Index-from+fixTurns)
	if err != nil {
		return it, err
	}
	keys := map[string]bool{}
	edited := map[string]bool{}
	for _, t := range rows {
		switch {
		case t.Index == r.Index:
			for _, e := range t.work.Edits {
				if e.Seq > failed.Seq && e.Status != harness.Failed {
					edited[e.File] = true
				}
			}
		case t.Index > r.Index:
			for _, e := range t.work.Edits {
				if e.Status != harness.Failed {
					edited[e.File] = true
				}
			}
			if len(t.work.Edits) == 0 {
				for i, a := range t.actions {
					if harness.FileAction(a) == harness.Edited && i < len(t.files) {
						edited[t.files[i]] = true
					}
				}
			}
		}
		for i, x := range runsOf(t) {
			key := digest.CommandKey(x.command)
			if key == "" {
				key = x.command
			}
			switch {
			case t.Index < r.Index || t.Index == r.Index && i <= at:
				if strings.Contains(normal(x.output), want) {
					keys[key] = true
				}
			case keys[key] && x.status == harness.Succeeded && !strings.Contains(normal(x.output), want):
				it.Fixed = true
				it.Confirmed = &Step{Ref: t.Ref, Command: x.command, Status: x.status, Exit: x.exit}
				it.Edited = sortedKeys(edited)
				return it, nil
			default:
				if len(it.Next) < fixSteps {
					it.Next = append(it.Next, Step{Ref: t.Ref, Command: x.command, Status: x.status, Exit: x.exit})
				}
			}
		}
	}
	it.Edited = sortedKeys(edited)
	return it, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// normal is text lowered with its spacing made single spaces, so an error
// a person pastes matches the output it was copied from.
func normal(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// longestWord is text's longest run of ASCII letters and digits: the
// store is searched for it before each output is checked whole (JSON
// escapes quotes and angle brackets, so the whole text is not searched
// there, and SQLite's lower() folds ASCII alone); "" when it has none.
func longestWord(text string) string {
	best := ""
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return r >= unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// lineHolding is the output's line that holds the error (the first of
// them), bounded.
func lineHolding(output, want string) string {
	for l := range strings.SplitSeq(output, "\n") {
		if strings.Contains(normal(l), want) {
			return firstLine(l, 200)
		}
	}
	return firstLine(output, 200)
}
