package digest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/quote"
)

// SessionInfo describes one indexed session.
type SessionInfo struct {
	ID      string
	Ordinal int
	// Started is the header time, zero when unknown.
	Started time.Time
	History string
	Project string
	Turns   int
	// Present is false once the session has left its file (the file was
	// deleted or cut); deja keeps it.
	Present bool
	// First is the session's first user message.
	First string
	// Harness names the harness that wrote the session ("aider", "claude").
	Harness string
	// Parent is the session this one was resumed, forked or spawned from.
	Parent string
	// Subagent marks a session a subagent ran.
	Subagent bool
}

// TurnDetail is one stored turn, in full.
type TurnDetail struct {
	Turn      int
	Line      int
	User      string
	Assistant string
	Files     []string
	Commands  []string
}

// SessionDetail is a session with its turns.
type SessionDetail struct {
	SessionInfo
	Header string
	Turns  []TurnDetail
}

// Sessions lists the indexed sessions in scope, newest first (sessions
// with an unknown start last, in file order).
func Sessions(ctx context.Context, s *store.Store, sc recall.Scope) ([]SessionInfo, error) {
	where, args := sc.Sql()
	rows, err := s.Read().QueryContext(ctx, `
		SELECT s.id, s.ordinal, s.started, s.path, s.project, s.present, s.harness, s.parent, s.subagent,
			(SELECT count(*) FROM turns t WHERE t.session_id = s.id),
			coalesce((SELECT t.user FROM turns t WHERE t.session_id = s.id AND t.user != '' ORDER BY t.turn LIMIT 1), '')
		FROM sessions s WHERE `+where+`
		ORDER BY s.started_ns IS NULL, s.started_ns DESC, s.path, s.ordinal`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: listing sessions: %w", err)
	}
	defer rows.Close()
	var out []SessionInfo
	for rows.Next() {
		var si SessionInfo
		var started *string
		if err := rows.Scan(&si.ID, &si.Ordinal, &started, &si.History, &si.Project, &si.Present, &si.Harness, &si.Parent, &si.Subagent, &si.Turns, &si.First); err != nil {
			return nil, err
		}
		si.Started = parseStarted(started)
		out = append(out, si)
	}
	return out, rows.Err()
}

// SessionList is one page of the sessions in a scope, newest first.
type SessionList struct {
	Sessions []SessionInfo
	// Total is how many sessions the page was taken from: those in scope
	// that hold a turn, or every one in scope when the list includes the
	// empty ones.
	Total int
	// Empty is how many sessions in scope hold no turn (an agent started
	// and quit before anything was asked); they are left out unless
	// asked for, and counted here either way.
	Empty int
}

// More is how many sessions the page left out.
func (l *SessionList) More() int { return l.Total - len(l.Sessions) }

// ListSessions lists at most limit sessions in scope (0: all), newest
// first, leaving out those with no turn unless withEmpty is set. Its
// Total is the count 'deja status' and 'deja index' report as sessions.
func ListSessions(ctx context.Context, s *store.Store, sc recall.Scope, limit int, withEmpty bool) (*SessionList, error) {
	all, err := Sessions(ctx, s, sc)
	if err != nil {
		return nil, err
	}
	l := &SessionList{Sessions: []SessionInfo{}}
	for _, si := range all {
		if si.Turns == 0 {
			l.Empty++
			if !withEmpty {
				continue
			}
		}
		l.Total++
		if limit <= 0 || len(l.Sessions) < limit {
			l.Sessions = append(l.Sessions, si)
		}
	}
	return l, nil
}

// Session returns one session with all its turns.
func Session(ctx context.Context, s *store.Store, id string) (*SessionDetail, error) {
	d := &SessionDetail{}
	var started *string
	err := s.Read().QueryRowContext(ctx, `SELECT id, ordinal, started, path, project, present, header, harness, parent, subagent FROM sessions WHERE id = ?`, id).
		Scan(&d.ID, &d.Ordinal, &started, &d.History, &d.Project, &d.Present, &d.Header, &d.Harness, &d.Parent, &d.Subagent)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w %q: 'deja sessions' lists the IDs", store.ErrNoSession, id)
	}
	if err != nil {
		return nil, fmt.Errorf("store: reading session %s: %w", id, err)
	}
	d.Started = parseStarted(started)
	rows, err := s.Read().QueryContext(ctx, `SELECT turn, line, user, assistant, files, commands FROM turns WHERE session_id = ? ORDER BY turn`, id)
	if err != nil {
		return nil, fmt.Errorf("store: reading session %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var t TurnDetail
		var files, commands string
		if err := rows.Scan(&t.Turn, &t.Line, &t.User, &t.Assistant, &files, &commands); err != nil {
			return nil, err
		}
		t.Files, t.Commands = store.SplitLines(files), store.SplitLines(commands)
		d.Turns = append(d.Turns, t)
	}
	d.SessionInfo.Turns = len(d.Turns)
	for _, t := range d.Turns {
		if strings.TrimSpace(t.User) != "" {
			d.First = t.User
			break
		}
	}
	return d, rows.Err()
}

func parseStarted(s *string) time.Time {
	if s == nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, *s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// ResolveSession finds the session a user means: its full ID, or a part
// of one that only one session has (such as its time stamp,
// 20260717T090000). Forgotten sessions resolve too, for an undo.
func ResolveSession(ctx context.Context, s *store.Store, ref string) (string, error) {
	var id string
	err := s.Read().QueryRowContext(ctx, `SELECT id FROM sessions WHERE id = ? UNION SELECT session_id FROM tombstones WHERE session_id = ?`, ref, ref).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: %w", err)
	}
	found, err := store.QueryStrings(ctx, s.Read(), `SELECT id FROM sessions WHERE instr(id, ?) > 0
		UNION SELECT session_id FROM tombstones WHERE instr(session_id, ?) > 0 ORDER BY 1 LIMIT 6`, ref, ref)
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return "", fmt.Errorf("%q names several sessions (%s…): give more of the ID", ref, quote.Line(strings.Join(found[:min(3, len(found))], ", ")))
	}
	return "", fmt.Errorf("%w %q: 'deja sessions' lists the IDs", store.ErrNoSession, ref)
}
