package work

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
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

// reading says what a query needs of each turn's work: the edits'
// texts (blame, restore) and the runs' outputs (fix, friction) are most
// of its bytes, and a query that does not need them drops them as each
// turn is read.
type reading struct{ spans, outputs bool }

var (
	withAll     = reading{spans: true, outputs: true}
	withOutputs = reading{outputs: true}
	withNeither = reading{}
)

// errStop ends a scan early; scanRows returns nil for it.
var errStop = errors.New("stop")

// detailBatch is how many turns' details one query reads.
const detailBatch = 200

// scanRows hands visit the turns in scope that cond (over t, s and w,
// with args) keeps, newest first, at most limit, one at a time: the
// turns are chosen first by their keys alone, then read in batches, so
// neither their texts nor their work are read for turns past the limit,
// and a query holds only what it keeps of each.
func scanRows(ctx context.Context, s *store.Store, sc recall.Scope, cond string, args []any, limit int, need reading, visit func(row) error) error {
	where, sargs := sc.Sql()
	idRows, err := s.Read().QueryContext(ctx, `SELECT t.id
		FROM turns t JOIN sessions s ON s.id = t.session_id LEFT JOIN turn_work w ON w.turn_id = t.id
		WHERE `+where+` AND (`+cond+`)
		ORDER BY coalesce(t.time_ns, s.started_ns) IS NULL, coalesce(t.time_ns, s.started_ns) DESC, t.session_id, t.turn DESC
		LIMIT ?`, append(append(sargs, args...), limit)...)
	if err != nil {
		return fmt.Errorf("store: reading work records: %w", err)
	}
	var ids []int64
	for idRows.Next() {
		var id int64
		if err := idRows.Scan(&id); err != nil {
			idRows.Close()
			return err
		}
		ids = append(ids, id)
	}
	idRows.Close()
	if err := idRows.Err(); err != nil {
		return err
	}
	for len(ids) > 0 {
		batch := ids[:min(detailBatch, len(ids))]
		ids = ids[len(batch):]
		byID, err := readDetails(ctx, s, batch, need)
		if err != nil {
			return err
		}
		for _, id := range batch {
			r, ok := byID[id]
			if !ok {
				continue // forgotten meanwhile
			}
			if err := visit(r); err == errStop {
				return nil
			} else if err != nil {
				return err
			}
		}
	}
	return nil
}

// readDetails reads the turns ids whole (less what need leaves out).
func readDetails(ctx context.Context, s *store.Store, ids []int64, need reading) (map[int64]row, error) {
	marks := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.Read().QueryContext(ctx, `SELECT t.id, t.session_id, t.turn, s.harness, s.project, coalesce(t.time_ns, s.started_ns, 0),
			substr(t.user, 1, `+fmt.Sprint(questionChars*2)+`), t.files, t.actions, t.commands, coalesce(unpack(w.work), ''),
			coalesce(w.end_ns, 0),
			coalesce((SELECT n.time_ns FROM turn_rows n WHERE n.session_id = t.session_id AND n.turn > t.turn
				AND n.time_ns IS NOT NULL ORDER BY n.turn LIMIT 1), 0)
		FROM turns t JOIN sessions s ON s.id = t.session_id LEFT JOIN turn_work w ON w.turn_id = t.id
		WHERE t.id IN (`+marks+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading work records: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]row, len(ids))
	for rows.Next() {
		var r row
		var ns, end, next int64
		var user, files, actions, commands, work string
		if err := rows.Scan(&r.id, &r.Session, &r.Index, &r.Harness, &r.Project, &ns, &user, &files, &actions, &commands, &work, &end, &next); err != nil {
			return nil, err
		}
		r.Ref = store.TurnRef(r.Session, r.Index)
		if ns != 0 {
			r.Time = time.Unix(0, ns).UTC()
		}
		r.Question = firstLine(user, questionChars)
		r.files, r.actions, r.commands = store.SplitLines(files), store.SplitLines(actions), store.SplitLines(commands)
		r.work = chunk.DecodeWork(work)
		for i := range r.work.Edits {
			if !need.spans {
				e := &r.work.Edits[i]
				e.Old, e.New = "", ""
			}
		}
		if !need.outputs {
			for i := range r.work.Runs {
				r.work.Runs[i].Output = ""
			}
		}
		switch {
		case end != 0:
			r.done = time.Unix(0, end).UTC()
		case next != 0:
			r.done = time.Unix(0, next).UTC()
		}
		out[r.id] = r
	}
	return out, rows.Err()
}

// readRows is scanRows' turns in a slice, for the queries that read few
// (a session's next turns).
func readRows(ctx context.Context, s *store.Store, sc recall.Scope, cond string, args []any, limit int, need reading) ([]row, error) {
	var out []row
	err := scanRows(ctx, s, sc, cond, args, limit, need, func(r row) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// sessionRows reads a session's turns from turn on, in order, at most
// limit: what came after a turn.
func sessionRows(ctx context.Context, s *store.Store, session string, from, limit int) ([]row, error) {
	rows, err := readRows(ctx, s, recall.Scope{Session: session, Subagents: true}, `t.turn >= ? AND t.turn < ?`, []any{from, from + limit}, limit, withOutputs)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Index < rows[j].Index })
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
	norm := func(p string) string {
		if p == "" {
			return ""
		}
		p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
		if len(p) > 1 && p[1] == ':' {
			p = strings.ToLower(p[:1]) + p[1:] // C:/ and c:/ are one drive
		}
		return p
	}
	recorded, asked, project = norm(recorded), norm(asked), norm(project)
	if isAbs(asked) {
		switch {
		case isAbs(recorded):
			return recorded == asked
		case project != "":
			return strings.TrimSuffix(project, "/")+"/"+recorded == asked
		}
		return false // a relative record of no known project: whose file, it cannot tell
	}
	return recorded == asked || strings.HasSuffix(recorded, "/"+asked)
}

// isAbs reports a slash path that is absolute on some system: /x, C:/x.
func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || len(p) > 2 && p[1] == ':' && p[2] == '/'
}
