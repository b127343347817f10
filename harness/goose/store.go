package goose

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// StoreName is the file Goose 1.10 and later keep every session in, in
// <data dir>/sessions (session/session_manager.rs).
const StoreName = "sessions.db"

// errNotPlain is wrapped by the error for a store whose tables are not
// plain tables.
var errNotPlain = errors.New("a Goose store holds plain tables")

// ReadStore reads every session of a Goose store, and of the legacy
// JSONL files beside it that the store does not hold (readLegacyBeside).
// A session that unchanged says the caller holds with its marker comes
// back with its ID and Marker alone, its rows unread.
//
// The store is read through harness.ReadSQLite: read-only, in one read
// transaction, with its write-ahead log (Goose opens it through sqlx's
// default journal), through tables that must be plain ones, and with a
// row's content over harness.MaxLine counted and left unread.
func ReadStore(ctx context.Context, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	h, err := harness.ReadSQLite(ctx, path, Name, "Goose's sessions.db", errNotPlain, func(tx *sql.Tx) (*harness.History, error) {
		return readStore(ctx, tx, path, unchanged)
	})
	if err != nil {
		return nil, err
	}
	held := map[string]bool{}
	for _, s := range h.Sessions {
		held[strings.TrimPrefix(s.ID, IDPrefix)] = true
	}
	readLegacyBeside(h, path, held, unchanged)
	for i := range h.Sessions {
		h.Sessions[i].Ordinal = i + 1
	}
	return h, nil
}

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
	infos, err := readSessions(ctx, tx, cols["sessions"])
	if err != nil {
		return nil, err
	}
	h := &harness.History{Path: path}
	var changed []string
	for _, s := range infos {
		if unchanged == nil || !unchanged(IDPrefix+s.ID, s.Marker) {
			changed = append(changed, s.ID)
		}
	}
	var rows map[string]*sessionRows
	if len(changed) > 0 {
		var ids []byte
		if len(changed) < len(infos) {
			if ids, err = json.Marshal(changed); err != nil {
				return nil, err
			}
		}
		if rows, err = readMessages(ctx, tx, ids, cols["messages"], h); err != nil {
			return nil, err
		}
	}
	read := map[string]bool{}
	for _, id := range changed {
		read[id] = true
	}
	for _, info := range infos {
		if !read[info.ID] {
			h.Sessions = append(h.Sessions, harness.Session{ID: IDPrefix + info.ID, Marker: info.Marker})
			continue
		}
		r := rows[info.ID]
		if r == nil {
			r = &sessionRows{}
		}
		h.Sessions = append(h.Sessions, buildSession(info, r.msgs, r.lines))
	}
	return h, nil
}

// columns names a table's columns: a store made by an older Goose lacks
// the ones its later migrations add (session_type in v5, metadata_json
// in v3).
func columns(ctx context.Context, tx *sql.Tx, table string) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
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
		out[strings.ToLower(name)] = true
	}
	return out, rows.Err()
}

// column is a table's column when the store has it, else the SQL value
// that stands for it.
func column(cols map[string]bool, name, absent string) string {
	if cols[name] {
		return name
	}
	return absent
}

// short selects a text column no longer than most bytes, else the empty
// string (an ID or a path of megabytes is no Goose's; octet_length reads
// the length without the value), and the empty string for NULL.
func short(col string, most int) string {
	return fmt.Sprintf(`CASE WHEN octet_length(%s) <= %d THEN CAST(%s AS TEXT) ELSE '' END`, col, most, col)
}

// readSessions reads the sessions table in creation order, each with its
// marker: its updated_at and its messages' count and highest rowid (Goose
// rewrites a conversation by deleting its rows and inserting them again:
// replace_conversation).
func readSessions(ctx context.Context, tx *sql.Tx, cols map[string]bool) ([]sessionInfo, error) {
	rows, err := tx.QueryContext(ctx, `WITH m AS (SELECT session_id, count(*) AS n, max(id) AS last FROM messages GROUP BY session_id)
		SELECT `+short("s.id", 256)+`, `+short("s.working_dir", 4096)+`, `+short("s.created_at", 64)+`,
			`+short("s.updated_at", 64)+`, `+short(column(cols, "session_type", "'user'"), 64)+`,
			COALESCE(m.n, 0), COALESCE(m.last, 0)
		FROM sessions AS s LEFT JOIN m ON m.session_id = s.id
		WHERE s.id IS NOT NULL
		ORDER BY s.created_at, s.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sessionInfo
	for rows.Next() {
		var s sessionInfo
		var created, updated string
		var n, last int64
		if err := rows.Scan(&s.ID, &s.Dir, &created, &updated, &s.Type, &n, &last); err != nil {
			return nil, err
		}
		s.Created = parseStoreTime(created)
		s.Marker = fmt.Sprintf("%s/%d/%d", updated, n, last)
		out = append(out, s)
	}
	return out, rows.Err()
}

// sessionRows are one session's messages in order, and where each is.
type sessionRows struct {
	msgs  []message
	lines []int
}

// contentColumn selects a row's content as bytes, or NULL when it is over
// harness.MaxLine (octet_length reads the length without the value).
var contentColumn = fmt.Sprintf(`CASE WHEN octet_length(content_json) <= %d THEN CAST(content_json AS BLOB) END`, harness.MaxLine)

// readMessages reads the message rows of the sessions named in ids (a
// JSON array; nil: every session) in the order Goose reads them back.
// get_conversation orders by timestamp, which Goose lets default to the
// time of the insert, and inserts a conversation's rows in order, so the
// rowid gives the same order; it walks idx_messages_session where the
// timestamp sorted every row, its content with it.
func readMessages(ctx context.Context, tx *sql.Tx, ids []byte, cols map[string]bool, h *harness.History) (map[string]*sessionRows, error) {
	cond, args := "1", []any(nil)
	if ids != nil {
		cond, args = "session_id IN (SELECT value FROM json_each(?))", []any{ids}
	}
	meta := column(cols, "metadata_json", "NULL")
	rows, err := tx.QueryContext(ctx, `SELECT `+short("session_id", 256)+`, `+short("role", 64)+`, `+contentColumn+`,
		COALESCE(created_timestamp, 0), CASE WHEN octet_length(`+meta+`) <= 4096 THEN CAST(`+meta+` AS BLOB) END
		FROM messages WHERE `+cond+` ORDER BY session_id, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*sessionRows{}
	skip := map[string]int{}
	var sc jsonscan.Scanner
	for rows.Next() {
		var session, role string
		var content, metadata sql.RawBytes
		var created sql.NullInt64
		if err := rows.Scan(&session, &role, &content, &created, &metadata); err != nil {
			return nil, err
		}
		r := out[session]
		if r == nil {
			r = &sessionRows{}
			out[session] = r
		}
		// A store has no lines: a message's Line is its position in
		// its session.
		r.lines = append(r.lines, len(r.msgs)+1)
		m := message{Role: role, Created: created.Int64}
		switch {
		case content == nil:
			skip[fmt.Sprintf("messages over %d MB", harness.MaxLine>>20)]++
			m = message{}
		case !decodeContent(&sc, content, &m):
			skip["messages whose content_json is not a JSON array"]++
			m = message{}
		case role != "user" && role != "assistant":
			skip["messages of unknown role "+harness.Quoted(role)]++
			m = message{}
		}
		for _, k := range m.Unknown {
			skip["content items of unknown type "+harness.Quoted(k)]++
		}
		if metadata != nil {
			decodeMetadata(&sc, metadata, &m)
		}
		r.msgs = append(r.msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var kinds []string
	for k := range skip {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		h.Warnings = append(h.Warnings, fmt.Sprintf("skipped %s: %d", k, skip[k]))
	}
	return out, nil
}
