package crush

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// ReadStore reads every session of a Crush store. A session that unchanged
// says the caller holds with its marker comes back with its ID and Marker
// alone, its messages unread (harness.ParseOptions.Unchanged).
//
// The store is opened read-only inside one read transaction, with its
// write-ahead log, where Crush's newest committed rows may live alone; when
// that cannot be done (a read-only directory with no -shm) it is opened as
// immutable, without the log, and a warning says so (harness.ReadSQLite).
// sessions and messages must be plain tables, and a message's parts over
// harness.MaxLine are counted and left unread.
func ReadStore(ctx context.Context, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	return harness.ReadSQLite(ctx, path, Name, "Crush's crush.db", errNotPlain, func(tx *sql.Tx) (*harness.History, error) {
		return readStore(ctx, tx, path, unchanged)
	})
}

// errNotPlain is wrapped by the error for a store whose tables are not
// plain tables.
var errNotPlain = errors.New("a Crush store holds plain tables")

// sessionRow is one row of the sessions table, with the marker of its
// messages.
type sessionRow struct {
	ID, Parent string
	Created    int64
	Marker     string
}

func readStore(ctx context.Context, tx *sql.Tx, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	for _, name := range []string{"sessions", "messages"} {
		ok, err := harness.PlainTable(ctx, tx, name, errNotPlain)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("it has no %s table (%w)", name, errNotPlain)
		}
	}
	rows, err := readSessions(ctx, tx)
	if err != nil {
		return nil, err
	}
	h := &harness.History{Path: path}
	skip := skipped{}
	project := projectOf(path)
	var changed []string
	ids := map[string]string{}
	for _, r := range rows {
		id := sessionID(r.ID)
		if id == "" {
			// A title session (title-<uuid>, CreateTitleSession) is
			// Crush's own call to name a session, no conversation; an
			// id of another shape is none Crush gives.
			if !strings.HasPrefix(r.ID, "title-") {
				skip.add("sessions whose id is of no shape Crush gives a conversation")
			}
			continue
		}
		ids[r.ID] = id
		if unchanged == nil || !unchanged(id, r.Marker) {
			changed = append(changed, r.ID)
		}
	}
	built := map[string]harness.Session{}
	if len(changed) > 0 {
		var list []byte
		if len(changed) < len(ids) {
			if list, err = json.Marshal(changed); err != nil {
				return nil, err
			}
		}
		byRow := map[string]sessionRow{}
		for _, r := range rows {
			byRow[r.ID] = r
		}
		err = readMessages(ctx, tx, list, skip, func(session string, msgs []message) {
			if id := ids[session]; id != "" {
				built[session] = buildSession(id, byRow[session], project, msgs, skip)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	read := map[string]bool{}
	for _, id := range changed {
		read[id] = true
	}
	for _, r := range rows {
		id := ids[r.ID]
		if id == "" {
			continue
		}
		s := harness.Session{ID: id, Marker: r.Marker}
		if read[r.ID] {
			var ok bool
			if s, ok = built[r.ID]; !ok {
				// A session with no messages.
				s = buildSession(id, r, project, nil, skip)
			}
		}
		s.Ordinal = len(h.Sessions) + 1
		h.Sessions = append(h.Sessions, s)
	}
	h.Warnings = skip.list()
	return h, nil
}

// readSessions reads the sessions table in creation order, each session
// with its marker: its own update time, its messages' latest update time,
// their count and their parts' total length, read from the rows' sizes
// without their values. Crush updates a message in place as it streams
// (UpdateMessage), in the same second as often as not, so the length
// tells a grown message from an unchanged one. Values are cast: a store is
// a file anyone can hand deja, and a text where a number belongs must not
// fail the read.
func readSessions(ctx context.Context, tx *sql.Tx) ([]sessionRow, error) {
	rows, err := tx.QueryContext(ctx, `WITH m AS (
			SELECT session_id, max(CAST(updated_at AS INTEGER)) AS updated, count(*) AS n, sum(octet_length(parts)) AS size
			FROM messages GROUP BY session_id)
		SELECT CAST(s.id AS TEXT), COALESCE(CAST(s.parent_session_id AS TEXT), ''), COALESCE(CAST(s.created_at AS INTEGER), 0),
			COALESCE(CAST(s.updated_at AS INTEGER), 0), COALESCE(m.updated, 0), COALESCE(m.n, 0), COALESCE(m.size, 0)
		FROM sessions AS s LEFT JOIN m ON m.session_id = s.id
		WHERE s.id IS NOT NULL
		ORDER BY 3, 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sessionRow
	for rows.Next() {
		var r sessionRow
		var updated, msgUpdated, n, size int64
		if err := rows.Scan(&r.ID, &r.Parent, &r.Created, &updated, &msgUpdated, &n, &size); err != nil {
			return nil, err
		}
		r.Marker = fmt.Sprintf("%d.%d/%d.%d", updated, msgUpdated, n, size)
		out = append(out, r)
	}
	return out, rows.Err()
}

// message is one row of the messages table, its parts still JSON.
type message struct {
	Role    string
	Created int64
	Summary bool
	Parts   []byte
	row     int64 // the rowid, the order rows of one second were written in
}

// partsColumn selects a message's parts as bytes, or NULL when they are
// over harness.MaxLine: octet_length reads the length without the value.
var partsColumn = fmt.Sprintf(`CASE WHEN octet_length(parts) <= %d THEN CAST(parts AS BLOB) END`, harness.MaxLine)

// readMessages calls each with the messages of each session named in
// list (a JSON array; nil: every session), one session at a time, so that
// no more than one session's rows are held: in the order Crush lists them
// (ListMessagesBySession: created_at), rows of the same second in the
// order they were written. The rows come by session_id, which Crush's
// index on it gives without a sort, and are put in order here: SQLite's
// sorter would carry every row's parts.
func readMessages(ctx context.Context, tx *sql.Tx, list []byte, skip skipped, each func(session string, msgs []message)) error {
	summary, err := hasColumn(ctx, tx, "messages", "is_summary_message")
	if err != nil {
		return err
	}
	summaryColumn := "0"
	if summary {
		// Added in 2025-08 (20250810000000_add_is_summary_message.sql).
		summaryColumn = "CASE WHEN CAST(is_summary_message AS INTEGER) != 0 THEN 1 ELSE 0 END"
	}
	cond, args := "1", []any(nil)
	if list != nil {
		cond, args = "session_id IN (SELECT value FROM json_each(?))", []any{list}
	}
	rows, err := tx.QueryContext(ctx, `SELECT CAST(session_id AS TEXT), COALESCE(CAST(role AS TEXT), ''), COALESCE(CAST(created_at AS INTEGER), 0), rowid, `+
		summaryColumn+`, parts IS NULL, COALESCE(octet_length(parts) > `+strconv.Itoa(harness.MaxLine)+`, 0), `+partsColumn+`
		FROM messages WHERE session_id IS NOT NULL AND `+cond+` ORDER BY session_id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var current string
	var msgs []message
	flush := func() {
		if len(msgs) == 0 {
			return
		}
		sort.Slice(msgs, func(i, j int) bool {
			if msgs[i].Created != msgs[j].Created {
				return msgs[i].Created < msgs[j].Created
			}
			return msgs[i].row < msgs[j].row
		})
		each(current, msgs)
		msgs = nil
	}
	for rows.Next() {
		var session string
		var m message
		var parts sql.RawBytes
		var none, over bool
		if err := rows.Scan(&session, &m.Role, &m.Created, &m.row, &m.Summary, &none, &over, &parts); err != nil {
			return err
		}
		if session != current {
			flush()
			current = session
		}
		switch {
		case none:
			skip.add("messages with no parts")
			continue
		case over:
			skip.add(fmt.Sprintf("messages over %d MB", harness.MaxLine>>20))
			continue
		}
		m.Parts = append([]byte(nil), parts...)
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	flush()
	return nil
}

// projectOf is the project of the store at path: the directory that
// holds its .crush data directory, "" for a store kept elsewhere (a data
// directory set in crush.json, or a copy), whose rows do not name it.
func projectOf(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != dataDirName {
		return ""
	}
	return filepath.Dir(dir)
}

// hasColumn reports whether table has the column name.
func hasColumn(ctx context.Context, tx *sql.Tx, table, name string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, name).Scan(&n)
	return n > 0, err
}

// skipped counts what a read left out, by kind, so a damaged store yields
// one warning per kind.
type skipped map[string]int

func (s skipped) add(what string) { s[what]++ }

func (s skipped) list() []string {
	var out []string
	for what, n := range s {
		out = append(out, fmt.Sprintf("skipped %s: %d", what, n))
	}
	sort.Strings(out)
	return out
}
