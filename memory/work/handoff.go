package work

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/note"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// Handoff is a session's work in brief, for another agent to carry on:
// what it set out to do, where it ended, what it decided, the files it
// edited and the commands it ran with how they ended, and what was left
// open.
type Handoff struct {
	Session  string    `json:"session"`
	Harness  string    `json:"harness"`
	Project  string    `json:"project"`
	Started  time.Time `json:"started,omitzero"`
	Turns    int       `json:"turns"`
	Goal     string    `json:"goal"`
	LastAsk  string    `json:"last_asked,omitempty"`
	Ended    string    `json:"ended_with,omitempty"`
	Decided  []string  `json:"decisions,omitempty"`
	Edited   []string  `json:"files_edited,omitempty"`
	Read     int       `json:"files_read,omitempty"`
	Commands []Command `json:"commands,omitempty"`
	Open     []string  `json:"open,omitempty"`
}

// Command is one command line of a handoff with how its runs ended.
type Command struct {
	Command string `json:"command"`
	Tally
	Last harness.Status `json:"last_status,omitempty"`
	Exit *int           `json:"last_exit,omitempty"`
	// Error is the line its last failed output showed, when it failed.
	Error string `json:"error,omitempty"`
}

// handoffLine bounds each text a handoff quotes, and handoffItems each
// list.
const (
	handoffLine  = 400
	handoffItems = 20
)

// NewHandoff reads a session's handoff.
func NewHandoff(ctx context.Context, s *store.Store, session string) (*Handoff, error) {
	d, err := digest.Session(ctx, s, session)
	if err != nil {
		return nil, err
	}
	h := &Handoff{Session: d.ID, Harness: d.Harness, Project: d.Project, Started: d.Started, Turns: len(d.Turns)}
	for _, t := range d.Turns {
		if q := strings.TrimSpace(t.User); q != "" {
			if h.Goal == "" {
				h.Goal = cut(q, handoffLine*2)
			}
			h.LastAsk = cut(q, handoffLine)
		}
		if a := strings.TrimSpace(t.Assistant); a != "" {
			h.Ended = cut(a, handoffLine*2)
		}
	}
	if h.LastAsk == h.Goal {
		h.LastAsk = ""
	}
	edited, read := map[string]bool{}, map[string]bool{}
	commands := map[string]*Command{}
	var order []string
	// Turns come newest first, and each turn's runs are read from its
	// last: the first run of a command seen is its last.
	err = scanRows(ctx, s, recall.Scope{Session: session, Subagents: true}, "1", nil, candidates, withOutputs, func(r row) error {
		for i, f := range r.files {
			if i < len(r.actions) && r.actions[i] == string(harness.Edited) {
				edited[f] = true
			} else {
				read[f] = true
			}
		}
		runs := runsOf(r)
		for i := len(runs) - 1; i >= 0; i-- {
			x := runs[i]
			line := strings.Join(strings.Fields(x.command), " ")
			c := commands[line]
			if c == nil {
				c = &Command{Command: cut(line, handoffLine), Last: x.status, Exit: x.exit}
				if x.status == harness.Failed {
					c.Error = cut(Signature(x.output), handoffLine)
				}
				commands[line] = c
				order = append(order, line)
			}
			c.add(x.status)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.Edited = sortedKeys(edited)
	for f := range read {
		if !edited[f] {
			h.Read++
		}
	}
	// Failures first: they are what the next agent must know of.
	sort.SliceStable(order, func(i, j int) bool {
		return commands[order[i]].Last == harness.Failed && commands[order[j]].Last != harness.Failed
	})
	for _, line := range order {
		c := commands[line]
		h.Commands = append(h.Commands, *c)
		if c.Last == harness.Failed {
			open := "`" + c.Command + "` failed the last time it ran"
			if c.Error != "" {
				open += ": " + c.Error
			}
			h.Open = append(h.Open, open)
		}
	}
	if len(d.Turns) > 0 && strings.TrimSpace(d.Turns[len(d.Turns)-1].Assistant) == "" {
		h.Open = append(h.Open, "the last question has no answer in the session")
	}
	h.Decided, err = decisions(ctx, s, session, store.FromOf(d.History))
	if err != nil {
		return nil, err
	}
	h.Edited, h.Commands, h.Open = first(h.Edited, handoffItems), first(h.Commands, handoffItems), first(h.Open, handoffItems)
	return h, nil
}

// decisions are the marks given the session or its turns, oldest first:
// this machine's, and those of the member whose session it is (from).
func decisions(ctx context.Context, s *store.Store, session, from string) ([]string, error) {
	rows, err := s.Read().QueryContext(ctx, `SELECT s.path, t.user FROM sessions s JOIN turns t ON t.session_id = s.id
		WHERE s.id >= ? AND s.id < ? AND s.harness = ? AND t.turn = 0 ORDER BY s.started_ns`, note.Name+"-", note.Name+".", note.Name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var path, text string
		if err := rows.Scan(&path, &text); err != nil {
			return nil, err
		}
		if by := store.FromOf(path); by != "" && by != from {
			continue
		}
		verdict, target, why, ok := note.ReadMark(text)
		if ok && (target == session || strings.HasPrefix(target, session+"/")) {
			d := fmt.Sprintf("%s %s", target, verdict)
			if why != "" {
				d += ": " + cut(why, handoffLine)
			}
			out = append(out, d)
		}
	}
	return out, rows.Err()
}

func first[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// cut is s on one line, at most n characters.
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Body is the handoff's lines, each from the session's record: what the
// caller quotes as a record for the next agent.
func (h *Handoff) Body() string {
	var b strings.Builder
	fmt.Fprintf(&b, "goal (its first question): %s\n", h.Goal)
	if h.LastAsk != "" {
		fmt.Fprintf(&b, "last asked: %s\n", h.LastAsk)
	}
	if h.Ended != "" {
		fmt.Fprintf(&b, "its last answer: %s\n", h.Ended)
	}
	for _, d := range h.Decided {
		fmt.Fprintf(&b, "decision: %s\n", d)
	}
	if len(h.Edited) > 0 {
		fmt.Fprintf(&b, "files edited: %s\n", strings.Join(h.Edited, ", "))
	}
	for _, c := range h.Commands {
		last := "outcome not recorded"
		switch {
		case c.Exit != nil:
			last = fmt.Sprintf("exit %d", *c.Exit)
		case c.Last == harness.Succeeded:
			last = "worked"
		case c.Last == harness.Failed:
			last = "failed"
		}
		runs := fmt.Sprintf("%d runs", c.Runs)
		if c.Runs == 1 {
			runs = "1 run"
		}
		fmt.Fprintf(&b, "ran: %s (%s, last %s)\n", c.Command, runs, last)
	}
	for _, o := range h.Open {
		fmt.Fprintf(&b, "open: %s\n", o)
	}
	return b.String()
}
