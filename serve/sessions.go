package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
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

// NewSessionInfo lays out a session as 'deja sessions --json' prints it,
// what the session holds inert, as NewRecallOutput lays it out.
func NewSessionInfo(s digest.SessionInfo) SessionInfo {
	j := SessionInfo{ID: quote.Line(s.ID), Ordinal: s.Ordinal, History: s.History, Project: quote.Line(s.Project), Turns: s.Turns, Present: s.Present,
		First: quote.Text(preview(s.First, QuestionPreview)), Harness: quote.Line(s.Harness), Parent: quote.Line(s.Parent), Subagent: s.Subagent}
	if !s.Started.IsZero() {
		t := s.Started.Format(time.RFC3339)
		j.Started = &t
	}
	return j
}

// SessionsRequest asks for the recent sessions.
type SessionsRequest struct {
	Project string `json:"project,omitempty" jsonschema:"only sessions of histories in this directory or below it (an absolute path, or ~/…); an unknown project is an error naming the closest indexed ones"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many sessions, newest first (default 20)"`
	All     bool   `json:"all,omitempty" jsonschema:"also list the sessions that hold no turn (started and quit), which are left out by default"`
}

// SessionsOutput is the sessions tool's answer, as 'deja sessions --json'.
type SessionsOutput struct {
	Sessions []SessionInfo `json:"sessions"`
	// Total is how many sessions the list was taken from (those holding
	// a turn, or all with All), More how many it left out, and Empty how
	// many in scope hold no turn, listed only with All.
	Total int `json:"total"`
	More  int `json:"more"`
	Empty int `json:"empty"`
	// all records whether the request asked for the empty sessions, so
	// the text says the right thing about them.
	all bool
}

// NewSessionsOutput lays out a page of sessions as 'deja sessions --json'
// prints it: every session of the page, where a person asked for them
// all (--limit 0) and a script reads them as a stream. An answer to an
// agent or over HTTP is bounded (BoundedSessionsOutput).
func NewSessionsOutput(l *digest.SessionList, all bool) SessionsOutput {
	return sessionsOutput(l, all, 0)
}

// BoundedSessionsOutput is NewSessionsOutput within MaxAnswerBytes: the
// sessions past the bound are counted in More.
func BoundedSessionsOutput(l *digest.SessionList, all bool) SessionsOutput {
	return sessionsOutput(l, all, MaxAnswerBytes)
}

// sessionsOutput lays out a page of sessions within bound bytes (0: no
// bound).
func sessionsOutput(l *digest.SessionList, all bool, bound int) SessionsOutput {
	out := SessionsOutput{Sessions: []SessionInfo{}, Total: l.Total, More: l.More(), Empty: l.Empty, all: all}
	size := 0
	for i, s := range l.Sessions {
		j := NewSessionInfo(s)
		// Past the answer's bound, the rest are counted as left out.
		if size += len(j.ID) + len(j.History) + len(j.Project) + len(j.First) + 256; bound > 0 && size > bound && i > 0 {
			out.More += len(l.Sessions) - i
			break
		}
		out.Sessions = append(out.Sessions, j)
	}
	return out
}

// DefaultSessions is how many sessions are listed when not told: a person
// or an agent wants the recent ones, not a store's whole history.
const DefaultSessions = 20

// Sessions lists the indexed sessions in scope, newest first.
func (m *Memory) Sessions(ctx context.Context, req SessionsRequest) (SessionsOutput, error) {
	out := SessionsOutput{Sessions: []SessionInfo{}}
	if req.Limit < 0 {
		return out, badRequest("limit is %d: use a positive number", req.Limit)
	}
	limit := req.Limit
	if limit == 0 {
		limit = DefaultSessions
	}
	var sc recall.Scope
	if p := strings.TrimSpace(req.Project); p != "" {
		var err error
		if sc.Project, err = recall.ResolveProject(p); err != nil {
			return out, badRequest("project: %v", err)
		}
		if err := recall.CheckScope(ctx, m.Store.Store, sc); errors.Is(err, recall.ErrBadScope) {
			return out, badRequest("project: %v", err)
		} else if err != nil {
			return out, err
		}
	}
	l, err := digest.ListSessions(ctx, m.Store.Store, sc, limit, req.All)
	if err != nil {
		return out, err
	}
	return BoundedSessionsOutput(l, req.All), nil
}

// Text renders the list one session a line, says what it left out, and
// quotes each session's first question as data, by number.
func (o SessionsOutput) Text() string {
	var b, first strings.Builder
	if len(o.Sessions) == 0 {
		switch {
		case o.Empty > 0 && !o.all:
			fmt.Fprintf(&b, "no session here holds a turn; %d hold none (started and quit): all=true lists them\n", o.Empty)
		case o.Empty == 0:
			b.WriteString("no sessions indexed: run 'deja index'\n")
		}
		return b.String()
	}
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
		fmt.Fprintf(&b, "%d. %s · %s · %s · %s%s\n", i+1, s.ID, when, words.Count(s.Turns, "turn"), quote.Line(s.Project), gone)
		fmt.Fprintf(&first, "%d. %s\n", i+1, oneLine(s.First, 120))
	}
	if o.More > 0 {
		fmt.Fprintf(&b, "%d more of %d: ask with a larger limit, or a project\n", o.More, o.Total)
	}
	if o.Empty > 0 && !o.all {
		if o.Empty == 1 {
			b.WriteString("1 session that holds no turn is left out: all=true lists it\n")
		} else {
			fmt.Fprintf(&b, "%d sessions that hold no turn are left out: all=true lists them\n", o.Empty)
		}
	}
	b.WriteString("\nThe first question of each, by number:\n")
	b.WriteString(quote.Block(first.String(), imported))
	return b.String()
}
