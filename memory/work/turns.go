package work

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// Turn names one turn of an answer: where it is, when, and the question
// that led to it.
type Turn struct {
	Ref      string    `json:"ref"`
	Session  string    `json:"session"`
	Index    int       `json:"turn"`
	Harness  string    `json:"harness"`
	Project  string    `json:"project"`
	Time     time.Time `json:"time,omitzero"`
	Question string    `json:"question,omitempty"`
}

// row is a turn as the queries read it, its work decoded.
type row struct {
	Turn
	id       int64
	files    []string
	actions  []string
	commands []string
	work     chunk.Work
	// done is when the turn's edits were all made: its work's end, or
	// the next turn's start; zero when unknown.
	done time.Time
}

// questionChars bounds the question an answer carries: its first line
// says what was asked; 'deja show' has the rest.
const questionChars = 300

// candidates bounds the turns one query reads before it checks each
// exactly, newest first: what a person reads of an answer is in the
// newest few hundred matches.
const candidates = 2000

// readRows reads the turns in scope that cond (over t, s and w, with
// args) keeps, newest first, at most limit.
func readRows(ctx context.Context, s *store.Store, sc recall.Scope, cond string, args []any, limit int) ([]row, error) {
	where, sargs := sc.Sql()
	q := `SELECT t.id, t.session_id, t.turn, s.harness, s.project, coalesce(t.time_ns, s.started_ns, 0),
			substr(t.user, 1, ` + fmt.Sprint(questionChars*2) + `), t.files, t.actions, t.commands, coalesce(unpack(w.work), ''),
			coalesce((SELECT min(n.time_ns) FROM turn_rows n WHERE n.session_id = t.session_id AND n.turn > t.turn), 0)
		FROM turns t JOIN sessions s ON s.id = t.session_id LEFT JOIN turn_work w ON w.turn_id = t.id
		WHERE ` + where + ` AND (` + cond + `)
		ORDER BY coalesce(t.time_ns, s.started_ns) IS NULL, coalesce(t.time_ns, s.started_ns) DESC, t.session_id, t.turn DESC
		LIMIT ?`
	rows, err := s.Read().QueryContext(ctx, q, append(append(sargs, args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: reading work records: %w", err)
	}
	defer rows.Close()
	var out []row
	for rows.Next() {
		var r row
		var ns, next int64
		var user, files, actions, commands, work string
		if err := rows.Scan(&r.id, &r.Session, &r.Index, &r.Harness, &r.Project, &ns, &user, &files, &actions, &commands, &work, &next); err != nil {
			return nil, err
		}
		r.Ref = store.TurnRef(r.Session, r.Index)
		if ns != 0 {
			r.Time = time.Unix(0, ns).UTC()
		}
		r.Question = firstLine(user, questionChars)
		r.files, r.actions, r.commands = store.SplitLines(files), store.SplitLines(actions), store.SplitLines(commands)
		r.work = chunk.DecodeWork(work)
		if r.done = r.work.End; r.done.IsZero() && next != 0 {
			r.done = time.Unix(0, next).UTC()
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// sessionRows reads a session's turns from turn on, in order, at most
// limit: what came after a turn.
func sessionRows(ctx context.Context, s *store.Store, session string, from, limit int) ([]row, error) {
	rows, err := readRows(ctx, s, recall.Scope{Session: session, Subagents: true}, `t.turn >= ? AND t.turn < ?`, []any{from, from + limit}, limit)
	slices.SortFunc(rows, func(a, b row) int { return a.Index - b.Index })
	return rows, err
}

// firstLine is the first non-empty line of s, at most n characters.
func firstLine(s string, n int) string {
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > n {
				return string(r[:n-1]) + "…"
			}
			return l
		}
	}
	return ""
}

// sameFile reports whether a turn's file record names the file asked
// about. An absolute path asked is that file alone: the record, made
// absolute in its project, is the same path. A relative one is asked as
// a person types it in a project: the record is that path, or ends with
// it at a '/' (a person may give less of the path).
func sameFile(recorded, asked, project string) bool {
	norm := func(p string) string { return strings.TrimPrefix(strings.ReplaceAll(p, "\\", "/"), "./") }
	recorded, asked, project = norm(recorded), norm(asked), norm(project)
	if isAbs(asked) {
		switch {
		case isAbs(recorded):
			return recorded == asked
		case project != "":
			return strings.TrimSuffix(project, "/")+"/"+recorded == asked
		}
		return strings.HasSuffix(asked, "/"+recorded)
	}
	return recorded == asked || strings.HasSuffix(recorded, "/"+asked)
}

// isAbs reports a slash path that is absolute on some system: /x, C:/x.
func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || len(p) > 2 && p[1] == ':' && p[2] == '/'
}
