package kiro

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// storeName is the CLI's SQLite store, in its data folder.
const storeName = "data.sqlite3"

// errNotPlain is wrapped by the error for a store whose conversation
// tables are not plain tables.
var errNotPlain = errors.New("the Kiro CLI's own store holds plain tables")

// The conversations of both tables, without their values, each once (a
// conversation two rows hold is read from the one saved last): the Kiro
// CLI's conversations_v2 rows oldest first, then the older table's rows (one
// per folder, named by the conversation_id inside the value) that are
// not also in conversations_v2. A row's marker is conversations_v2's
// updated_at, or the length of an older row's value, which each saved
// turn grows.
const (
	v2Rows     = `SELECT key, conversation_id, 0, octet_length(value), created_at, max(updated_at) FROM conversations_v2 GROUP BY conversation_id`
	legacyRows = `SELECT key, json_extract(value, '$.conversation_id') AS cid, 1, max(octet_length(value)), 0, 0 FROM conversations WHERE json_valid(value) GROUP BY cid`
)

// ReadStore reads every conversation of a Kiro CLI (or Amazon Q CLI)
// data.sqlite3. The store is opened as harness.ReadSQLite opens every
// store (read-only, with its WAL, immutable when that cannot be done);
// conversations_v2 and conversations must be plain tables, and no other
// table is queried (the store also holds the login tokens). A
// conversations_v2 row whose conversation has a v2 session file beside
// the store (~/.kiro/sessions/cli/<id>.jsonl) is left to that file, which
// gives it the same ID. A session
// that unchanged reports known with its marker comes back with its ID
// and Marker alone, its value unread; a value over harness.MaxLine is
// counted and left unread.
func ReadStore(ctx context.Context, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	return harness.ReadSQLite(ctx, path, Name, "the Kiro CLI's data.sqlite3", errNotPlain, func(tx *sql.Tx) (*harness.History, error) {
		query := ""
		for _, t := range []struct{ name, rows string }{{"conversations_v2", v2Rows}, {"conversations", legacyRows}} {
			ok, err := harness.PlainTable(ctx, tx, t.name, errNotPlain)
			if err != nil {
				return nil, err
			}
			switch {
			case ok && query != "":
				// A conversation both tables hold is read from the newer.
				query += " UNION ALL " + strings.Replace(t.rows, "GROUP", "AND cid NOT IN (SELECT conversation_id FROM conversations_v2) GROUP", 1)
			case ok:
				query = t.rows
			}
		}
		h := &harness.History{Path: path}
		if query == "" {
			return h, nil
		}
		rows, err := tx.QueryContext(ctx, query+" ORDER BY 3, 5, 2")
		if err != nil {
			return nil, err
		}
		type row struct {
			key, id            string
			legacy             bool
			size, created, upd int64
		}
		var list []row
		for rows.Next() {
			var r row
			var id sql.NullString
			if err := rows.Scan(&r.key, &id, &r.legacy, &r.size, &r.created, &r.upd); err != nil {
				rows.Close()
				return nil, err
			}
			r.id = id.String
			list = append(list, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		over, files := 0, sessionIDs(path)
		for _, r := range list {
			if !r.legacy && files[r.id] {
				continue // its v2 session file is read instead
			}
			id, marker, table := IDPrefix+r.id, strconv.FormatInt(r.upd, 10), "conversations_v2 WHERE key = ? AND conversation_id = ?"
			if r.legacy {
				id, marker, table = qPrefix+r.id, "q:"+strconv.FormatInt(r.size, 10), "conversations WHERE key = ? AND ? != ''"
			}
			if r.size > harness.MaxLine {
				over++
				continue
			}
			if unchanged != nil && unchanged(id, marker) {
				h.Sessions = append(h.Sessions, harness.Session{ID: id, Marker: marker})
				continue
			}
			var value string
			err := tx.QueryRowContext(ctx, `SELECT CAST(value AS TEXT) FROM `+table, r.key, r.id).Scan(&value)
			if errors.Is(err, sql.ErrNoRows) {
				continue // rewritten since, or a key not stored as text
			}
			if err != nil {
				return nil, err
			}
			s, ok := parseConversation([]byte(value), r.key, &h.Warnings)
			if !ok {
				continue
			}
			s.ID, s.Marker = id, marker
			if r.created > 0 {
				s.Started = time.UnixMilli(r.created)
			}
			h.Sessions = append(h.Sessions, s)
		}
		if over > 0 {
			h.Warnings = append(h.Warnings, fmt.Sprintf("%d conversations larger than %d MB, skipped", over, harness.MaxLine>>20))
		}
		for i := range h.Sessions {
			h.Sessions[i].Ordinal = i + 1
		}
		return h, nil
	})
}
