package work

import (
	"context"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// HowGroup is one invocation ("go test", "docker build") of the commands
// that match a how question, with how often it worked.
type HowGroup struct {
	Invocation string `json:"invocation"`
	Tally
	// Commands are the distinct command lines, the newest that worked
	// first, then the others newest first.
	Commands []HowCommand `json:"commands"`
}

// Tally counts runs by how they ended; Unknown are runs whose harness
// recorded no outcome.
type Tally struct {
	Runs    int `json:"runs"`
	Worked  int `json:"worked"`
	Failed  int `json:"failed"`
	Unknown int `json:"unknown"`
}

func (t *Tally) add(st harness.Status) {
	t.Runs++
	switch st {
	case harness.Succeeded:
		t.Worked++
	case harness.Failed:
		t.Failed++
	default:
		t.Unknown++
	}
}

// HowCommand is one command line as it was run, with its tally and its
// newest run.
type HowCommand struct {
	Command string `json:"command"`
	Tally
	// Last is the newest turn that ran it, LastStatus and LastExit how
	// that run ended; LastWorked is the newest turn where it worked.
	Last       Turn           `json:"last"`
	LastStatus harness.Status `json:"last_status,omitempty"`
	LastExit   *int           `json:"last_exit,omitempty"`
	LastWorked *Turn          `json:"last_worked,omitempty"`
}

// run is one command run read from a turn: from its work where the
// harness recorded outcomes, else from its command records (unknown).
type run struct {
	command string
	status  harness.Status
	exit    *int
	output  string
}

// runsOf are a row's runs in order.
func runsOf(r row) []run {
	if len(r.work.Runs) > 0 {
		out := make([]run, len(r.work.Runs))
		for i, x := range r.work.Runs {
			out[i] = run{x.Command, x.Status, x.Exit, x.Output}
		}
		return out
	}
	out := make([]run, len(r.commands))
	for i, c := range r.commands {
		out[i] = run{command: c}
	}
	return out
}

// How returns the commands run in scope whose line holds text (case
// insensitive), grouped by invocation, the groups with the newest working
// run first, at most limit groups.
func How(ctx context.Context, s *store.Store, sc recall.Scope, text string, limit int) ([]HowGroup, error) {
	want := strings.ToLower(strings.Join(strings.Fields(text), " "))
	if want == "" {
		return nil, nil
	}
	groups := map[string]*HowGroup{}
	commands := map[string]*HowCommand{}
	var order []string
	// Turns come newest first; runs within a turn are in order, so the
	// last of a turn is its newest.
	err := scanRows(ctx, s, sc, `instr(lower(t.commands), ?) > 0`, []any{want}, candidates*5, withNeither, func(r row) error {
		runs := runsOf(r)
		for i := len(runs) - 1; i >= 0; i-- {
			x := runs[i]
			line := strings.Join(strings.Fields(x.command), " ")
			if !strings.Contains(strings.ToLower(line), want) {
				continue
			}
			key := digest.CommandKey(line)
			if key == "" {
				key = strings.Fields(line)[0]
			}
			g := groups[key]
			if g == nil {
				g = &HowGroup{Invocation: key}
				groups[key] = g
				order = append(order, key)
			}
			g.add(x.status)
			c := commands[line]
			if c == nil {
				c = &HowCommand{Command: line, Last: r.Turn, LastStatus: x.status, LastExit: x.exit}
				commands[line] = c
				g.Commands = append(g.Commands, HowCommand{Command: line})
			}
			c.add(x.status)
			if x.status == harness.Succeeded && c.LastWorked == nil {
				t := r.Turn
				c.LastWorked = &t
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []HowGroup
	for _, key := range order {
		g := groups[key]
		for i := range g.Commands {
			g.Commands[i] = *commands[g.Commands[i].Command]
		}
		sort.SliceStable(g.Commands, func(i, j int) bool { return firstWorked(g.Commands[i], g.Commands[j]) < 0 })
		out = append(out, *g)
	}
	sort.SliceStable(out, func(i, j int) bool { return firstWorked(out[i].Commands[0], out[j].Commands[0]) < 0 })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// firstWorked orders commands: those that worked by their newest working
// run, newest first, then those that never did, by their newest run.
func firstWorked(a, b HowCommand) int {
	aw, bw := a.LastWorked != nil, b.LastWorked != nil
	if aw != bw {
		if aw {
			return -1
		}
		return 1
	}
	at, bt := a.Last.Time, b.Last.Time
	if aw {
		at, bt = a.LastWorked.Time, b.LastWorked.Time
	}
	return bt.Compare(at)
}
