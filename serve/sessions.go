package serve

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory"
	"github.com/deja-dev/deja/quote"
)

// SessionInfo is one session with the fields of 'deja sessions --json'.
type SessionInfo struct {
	ID      string  `json:"id"`
	Ordinal int     `json:"ordinal"`
	Started *string `json:"started"`
	History string  `json:"history"`
	Project string  `json:"project"`
	Turns   int     `json:"turns"`
	Present bool    `json:"present"`
	First   string  `json:"first"`
	// Harness, Parent and Subagent say which agent wrote the session and
	// what it was resumed from or run for.
	Harness  string `json:"harness"`
	Parent   string `json:"parent,omitempty"`
	Subagent bool   `json:"subagent,omitempty"`
}

// NewSessionInfo lays out a session as 'deja sessions --json' prints it.
func NewSessionInfo(s memory.SessionInfo) SessionInfo {
	j := SessionInfo{ID: s.ID, Ordinal: s.Ordinal, History: s.History, Project: s.Project, Turns: s.Turns, Present: s.Present, First: s.First,
		Harness: s.Harness, Parent: s.Parent, Subagent: s.Subagent}
	if !s.Started.IsZero() {
		t := s.Started.Format(time.RFC3339)
		j.Started = &t
	}
	return j
}

// SessionsRequest asks for the recent sessions.
type SessionsRequest struct {
	Project string `json:"project,omitempty" jsonschema:"only sessions of aider histories in this directory or below it (absolute path)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many sessions, newest first (default 20)"`
}

// SessionsOutput is the sessions tool's answer, as 'deja sessions --json'.
type SessionsOutput struct {
	Sessions []SessionInfo `json:"sessions"`
}

// defaultSessions is how many sessions the tool lists when not told: an
// agent wants the recent ones, not a store's whole history.
const defaultSessions = 20

// Sessions lists the indexed sessions in scope, newest first.
func (m *Memory) Sessions(ctx context.Context, req SessionsRequest) (SessionsOutput, error) {
	out := SessionsOutput{Sessions: []SessionInfo{}}
	if req.Limit < 0 {
		return out, badRequest("limit is %d: use a positive number", req.Limit)
	}
	limit := req.Limit
	if limit == 0 {
		limit = defaultSessions
	}
	var sc memory.Scope
	if p := strings.TrimSpace(req.Project); p != "" {
		var err error
		if sc.Project, err = aider.ResolvePath(p); err != nil {
			return out, badRequest("project: %v", err)
		}
	}
	list, err := m.Store.Sessions(ctx, sc)
	if err != nil {
		return out, err
	}
	for _, s := range list[:min(limit, len(list))] {
		out.Sessions = append(out.Sessions, NewSessionInfo(s))
	}
	return out, nil
}

// Text renders the list one session a line.
func (o SessionsOutput) Text() string {
	if len(o.Sessions) == 0 {
		return "no sessions indexed: run 'deja index'\n"
	}
	var b, first strings.Builder
	var origins quote.Origins
	imported := false
	for i, s := range o.Sessions {
		when := "start unknown"
		if s.Started != nil {
			when = *s.Started
		}
		gone := ""
		if !s.Present {
			gone = " (gone from its file)"
		}
		if origins.Imported(s.History) {
			gone += " (" + quote.ImportedNote + ")"
			imported = true
		}
		fmt.Fprintf(&b, "%d. %s · %s · %d turns · %s%s\n", i+1, s.ID, when, s.Turns, quote.Line(s.Project), gone)
		fmt.Fprintf(&first, "%d. %s\n", i+1, oneLine(s.First, 120))
	}
	b.WriteString("\nThe first question of each, by number:\n")
	b.WriteString(quote.Block(first.String(), imported))
	return b.String()
}

// ShowRequest names a session, or one turn of it.
type ShowRequest struct {
	Session string `json:"session" jsonschema:"a session ID as recall and sessions name it, or a part only one session has (such as 20260717T090000); SESSION/TURN names one turn"`
	Turn    *int   `json:"turn,omitempty" jsonschema:"only this turn of the session; every turn when absent"`
}

// Turn is one turn of a shown session, as 'deja show --json' has it.
type Turn struct {
	Turn      int      `json:"turn"`
	Line      int      `json:"line"`
	User      string   `json:"user"`
	Assistant string   `json:"assistant"`
	Files     []string `json:"files"`
	Commands  []string `json:"commands"`
}

// ShowOutput is a session with its turns, as 'deja show --json'.
type ShowOutput struct {
	SessionInfo
	Header string `json:"header"`
	Turns  []Turn `json:"turns"`
}

// ErrNotFound marks a session or turn the store does not hold.
var ErrNotFound = errors.New("not found")

// Show returns a session, or the turn the request names.
func (m *Memory) Show(ctx context.Context, req ShowRequest) (ShowOutput, error) {
	ref, turn := strings.TrimSpace(req.Session), req.Turn
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		n, err := strconv.Atoi(ref[i+1:])
		if err != nil {
			return ShowOutput{}, badRequest("%q: the turn after / must be a number, as in SESSION/2", ref)
		}
		ref, turn = ref[:i], &n
	}
	if ref == "" {
		return ShowOutput{}, badRequest("session is empty: give an ID from recall or sessions")
	}
	id, err := m.Store.ResolveSession(ctx, ref)
	if errors.Is(err, memory.ErrNoSession) {
		return ShowOutput{}, fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	if err != nil {
		return ShowOutput{}, err
	}
	d, err := m.Store.Session(ctx, id)
	if errors.Is(err, memory.ErrNoSession) {
		return ShowOutput{}, fmt.Errorf("%w: %v (it was forgotten)", ErrNotFound, err)
	}
	if err != nil {
		return ShowOutput{}, err
	}
	out := NewShowOutput(d, turn)
	if turn != nil && len(out.Turns) == 0 {
		return ShowOutput{}, fmt.Errorf("%w: session %s has no turn %d: it has turns 0 to %d", ErrNotFound, d.ID, *turn, max(0, len(d.Turns)-1))
	}
	return out, nil
}

// NewShowOutput lays out a session as 'deja show --json' prints it: every
// turn, or only the one turn names. A turn the session lacks leaves Turns
// empty; the caller says so.
func NewShowOutput(d *memory.SessionDetail, turn *int) ShowOutput {
	out := ShowOutput{SessionInfo: NewSessionInfo(d.SessionInfo), Header: d.Header, Turns: []Turn{}}
	for _, t := range d.Turns {
		if turn == nil || t.Turn == *turn {
			out.Turns = append(out.Turns, Turn{t.Turn, t.Line, t.User, t.Assistant, nonNil(t.Files), nonNil(t.Commands)})
		}
	}
	return out
}

// Markdown renders the session as 'deja show' prints it.
func (o ShowOutput) Markdown() string {
	var b strings.Builder
	when := "start unknown"
	if o.Started != nil {
		when = *o.Started
	}
	fmt.Fprintf(&b, "# %s\n\n", o.ID)
	fmt.Fprintf(&b, "Started %s · %s", when, quote.Line(o.History))
	if !o.Present {
		fmt.Fprint(&b, " (the session has left this file; deja kept it)")
	}
	fmt.Fprint(&b, "\n")
	var origins quote.Origins
	imported := origins.Imported(o.History)
	if imported {
		fmt.Fprintf(&b, "Git tracks this history: it is %s, and anyone who can commit to the repository may have written it.\n", quote.ImportedNote)
	}
	for _, t := range o.Turns {
		fmt.Fprintf(&b, "\n## Turn %d (line %d)\n\n", t.Turn, t.Line)
		var q strings.Builder
		if t.User != "" {
			fmt.Fprintf(&q, "**You:** %s\n\n", t.User)
		}
		if t.Assistant != "" {
			fmt.Fprintf(&q, "%s\n\n", t.Assistant)
		}
		for _, f := range t.Files {
			fmt.Fprintf(&q, "> file: %s\n", quote.Line(f))
		}
		for _, c := range t.Commands {
			fmt.Fprintf(&q, "> ran: %s\n", quote.Line(c))
		}
		b.WriteString(quote.Block(q.String(), imported))
	}
	return b.String()
}
