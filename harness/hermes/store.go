package hermes

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// ReadStore reads every session of a Hermes state.db. A session that
// unchanged says the caller holds with its marker comes back with its ID
// and Marker alone, its rows unread (harness.ParseOptions.Unchanged).
//
// Hermes runs the store in WAL mode, its newest rows in state.db-wal, so
// the store is read through SQLite (harness.ReadSQLite: read-only, one
// read transaction, immutable when a read-only open cannot work). It is
// a file anyone can hand deja, so sessions and messages must be plain
// tables, every value is read through a CAST (a column's declared type
// binds nothing in SQLite), and a message's content or tool calls over
// harness.MaxLine are counted and left unread. Messages are read one
// session at a time, in row order, so memory holds one session's rows.
func ReadStore(ctx context.Context, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	return harness.ReadSQLite(ctx, path, Name, "Hermes Agent's state.db", errNotPlain, func(tx *sql.Tx) (*harness.History, error) {
		return readStore(ctx, tx, path, unchanged)
	})
}

// errNotPlain is wrapped by the error for a store whose tables are not
// plain tables.
var errNotPlain = errors.New("a Hermes Agent store holds plain tables")

func readStore(ctx context.Context, tx *sql.Tx, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	cols := map[string]map[string]bool{}
	for _, name := range []string{"sessions", "messages"} {
		ok, err := harness.PlainTable(ctx, tx, name, errNotPlain)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("it has no %s table (%w)", name, errNotPlain)
		}
		if cols[name], err = columns(ctx, tx, name); err != nil {
			return nil, err
		}
	}
	sessions, err := readSessions(ctx, tx, cols)
	if err != nil {
		return nil, err
	}
	profile := profileOf(path)
	h := &harness.History{Path: path}
	var changed []string
	read := map[string]bool{}
	for _, s := range sessions {
		if unchanged == nil || !unchanged(sessionID(profile, s.ID), s.marker()) {
			changed = append(changed, s.ID)
			read[s.ID] = true
		}
	}
	built := map[string]harness.Session{}
	var warn harness.Warnings
	if len(changed) > 0 {
		var ids []byte
		if len(changed) < len(sessions) {
			if ids, err = json.Marshal(changed); err != nil {
				return nil, err
			}
		}
		byID := map[string]*sessionRow{}
		for i := range sessions {
			byID[sessions[i].ID] = &sessions[i]
		}
		err := readMessages(ctx, tx, cols["messages"], ids, &warn, func(sid string, rows []messageRow) {
			if s := byID[sid]; s != nil && read[sid] {
				built[sid] = buildSession(profile, *s, rows)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	for i, s := range sessions {
		out, ok := built[s.ID]
		switch {
		case ok:
		case read[s.ID]:
			// A session with no message rows.
			out = buildSession(profile, s, nil)
		default:
			out = harness.Session{ID: sessionID(profile, s.ID), Marker: s.marker()}
		}
		out.Ordinal = i + 1
		h.Sessions = append(h.Sessions, out)
	}
	h.Warnings = warn.List()
	return h, nil
}

// columns returns the names of a table's columns: Hermes adds columns
// as its schema grows (schema_version 17 has active and compacted; older
// stores lack them), and a column a store lacks reads as its default.
func columns(ctx context.Context, tx *sql.Tx, table string) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT lower(name) FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// column is the expression that reads name of table alias as text, or
// fallback when the store has no such column.
func column(cols map[string]bool, alias, name, fallback string) string {
	if !cols[name] {
		return fallback
	}
	return "CAST(" + alias + name + " AS TEXT)"
}

// sessionRow is what the reader takes of a sessions row, and counts of
// its message rows for its marker.
type sessionRow struct {
	ID, Source, Parent, Cwd, RepoRoot string
	Started                           float64
	// Delegate marks a delegate_task subagent's session: its model_config
	// holds _delegate_from (hermes_state_compression.py keeps such
	// children out of a compression chain).
	Delegate bool
	// Rows, Last and Live are the session's message rows, the largest
	// row id and the rows still active: a message appended or a turn
	// rewound (/undo, /retry set active = 0) changes one of them.
	Rows, Last, Live int64
}

// marker is a session's change marker.
func (s sessionRow) marker() string { return fmt.Sprintf("%d/%d/%d", s.Rows, s.Last, s.Live) }

// readSessions reads the sessions in the order they started.
func readSessions(ctx context.Context, tx *sql.Tx, cols map[string]map[string]bool) ([]sessionRow, error) {
	sc, mc := cols["sessions"], cols["messages"]
	live := "count(*)"
	if mc["active"] {
		live = "total(CAST(active AS INTEGER) != 0)"
	}
	delegate := "0"
	if sc["model_config"] {
		delegate = `CASE WHEN json_valid(s.model_config) THEN json_type(s.model_config, '$._delegate_from') IS NOT NULL ELSE 0 END`
	}
	started := "0"
	if sc["started_at"] {
		started = "COALESCE(CAST(s.started_at AS REAL), 0)"
	}
	q := `WITH m AS (SELECT CAST(session_id AS TEXT) AS sid, count(*) AS n, max(rowid) AS last, ` + live + ` AS live FROM messages GROUP BY 1)
		SELECT CAST(s.id AS TEXT), ` + strings.Join([]string{
		"COALESCE(" + column(sc, "s.", "source", "''") + ", '')",
		"COALESCE(" + column(sc, "s.", "parent_session_id", "''") + ", '')",
		"COALESCE(" + column(sc, "s.", "cwd", "''") + ", '')",
		"COALESCE(" + column(sc, "s.", "git_repo_root", "''") + ", '')",
		started, delegate,
	}, ", ") + `, COALESCE(m.n, 0), COALESCE(m.last, 0), CAST(COALESCE(m.live, 0) AS INTEGER)
		FROM sessions AS s LEFT JOIN m ON m.sid = CAST(s.id AS TEXT)
		WHERE s.id IS NOT NULL ORDER BY 6, 1`
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sessionRow
	for rows.Next() {
		var s sessionRow
		if err := rows.Scan(&s.ID, &s.Source, &s.Parent, &s.Cwd, &s.RepoRoot, &s.Started, &s.Delegate, &s.Rows, &s.Last, &s.Live); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// messageRow is what the reader takes of a messages row.
type messageRow struct {
	Role, Content, ToolCallID, ToolCalls, ToolName string
	Time                                           float64
	Active, Compacted                              bool
}

// bounded reads a text column as bytes, or NULL when it is over
// harness.MaxLine: octet_length reads the length without the value.
func bounded(cols map[string]bool, name string) string {
	if !cols[name] {
		return "NULL, 0"
	}
	return fmt.Sprintf("CASE WHEN octet_length(%[1]s) <= %[2]d THEN CAST(%[1]s AS BLOB) END, COALESCE(octet_length(%[1]s), 0) > %[2]d", name, harness.MaxLine)
}

// readMessages reads the message rows of the sessions named in ids (a
// JSON array; nil: every session), handing each session's rows, in row
// order, to session.
func readMessages(ctx context.Context, tx *sql.Tx, mc map[string]bool, ids []byte, warn *harness.Warnings, session func(sid string, rows []messageRow)) error {
	cond, args := "1", []any(nil)
	if ids != nil {
		cond, args = "CAST(session_id AS TEXT) IN (SELECT value FROM json_each(?))", []any{string(ids)}
	}
	flag := func(name, fallback string) string {
		if !mc[name] {
			return fallback
		}
		return "COALESCE(CAST(" + name + " AS INTEGER) != 0, 0)"
	}
	q := `SELECT CAST(session_id AS TEXT), COALESCE(CAST(role AS TEXT), ''), ` + bounded(mc, "content") + `, ` + bounded(mc, "tool_calls") + `, ` +
		"COALESCE(" + column(mc, "", "tool_call_id", "''") + ", ''), COALESCE(" + column(mc, "", "tool_name", "''") + ", ''), " +
		`COALESCE(CAST(timestamp AS REAL), 0), ` + flag("active", "1") + `, ` + flag("compacted", "0") + `
		FROM messages WHERE ` + cond + ` ORDER BY 1, rowid`
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var current string
	var batch []messageRow
	for rows.Next() {
		var sid string
		var m messageRow
		var content, calls sql.RawBytes
		var contentOver, callsOver bool
		if err := rows.Scan(&sid, &m.Role, &content, &contentOver, &calls, &callsOver, &m.ToolCallID, &m.ToolName, &m.Time, &m.Active, &m.Compacted); err != nil {
			return err
		}
		if sid != current {
			if batch != nil {
				session(current, batch)
			}
			current, batch = sid, []messageRow{}
		}
		if contentOver || callsOver {
			warn.Add(fmt.Sprintf("messages over %d MB, left unread", harness.MaxLine>>20), len(batch)+1)
			continue
		}
		m.Content, m.ToolCalls = string(content), string(calls)
		batch = append(batch, m)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if batch != nil {
		session(current, batch)
	}
	return nil
}
