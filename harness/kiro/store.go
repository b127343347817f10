package kiro

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/deja-dev/deja/harness"
)

// storeName is the CLI's SQLite store, in its data folder.
const storeName = "data.sqlite3"

// errNotPlain is wrapped by the error for a store whose conversation
// tables are not plain tables.
var errNotPlain = errors.New("the Kiro CLI's own store holds plain tables")

// row is one conversation row: the directory it ran in (the row's key),
// its value (a ConversationState; read for a conversations_v2 row only
// when it changed), its size and its times.
type row struct {
	key, id, value   string
	size             int64
	created, updated int64
	legacy           bool
	marker           string
	// rawKey and rawID are a conversations_v2 row's primary key as stored,
	// to read its value by.
	rawKey, rawID any
}

// ReadStore reads every conversation of a Kiro CLI (or Amazon Q CLI)
// data.sqlite3: the conversations_v2 rows, then the rows of the older
// conversations table whose conversation is not also in
// conversations_v2. The store is opened as harness.ReadSQLite opens
// every store (read-only, with its WAL, immutable when that cannot be
// done); the two tables must be plain ones, and a value over
// harness.MaxLine is counted and left unread. A session that unchanged
// reports known with its marker (conversations_v2's updated_at, a hash of
// an older row's value) comes back with its ID and Marker alone.
func ReadStore(ctx context.Context, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	return harness.ReadSQLite(ctx, path, Name, "the Kiro CLI's data.sqlite3", errNotPlain, func(tx *sql.Tx) (*harness.History, error) {
		rows, err := readRows(ctx, tx)
		if err != nil {
			return nil, err
		}
		h := &harness.History{Path: path}
		over := 0
		for _, r := range rows {
			id := IDPrefix + r.id
			if r.legacy {
				id = qPrefix + r.id
			}
			if r.size > harness.MaxLine {
				over++
				continue
			}
			if unchanged != nil && unchanged(id, r.marker) {
				h.Sessions = append(h.Sessions, harness.Session{ID: id, Marker: r.marker})
				continue
			}
			if !r.legacy {
				if err := tx.QueryRowContext(ctx, `SELECT CAST(value AS TEXT) FROM conversations_v2 WHERE key = ? AND conversation_id = ?`, r.rawKey, r.rawID).Scan(&r.value); err != nil {
					return nil, err
				}
			}
			s, ok := parseConversation([]byte(r.value), r.key, &h.Warnings)
			if !ok {
				continue
			}
			s.ID, s.Marker = id, r.marker
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

// readRows reads the rows of both tables that the store has, oldest
// first, the values over the bound left unread.
func readRows(ctx context.Context, tx *sql.Tx) ([]row, error) {
	var rows []row
	seen := map[string]bool{}
	for _, table := range []string{"conversations_v2", "conversations"} {
		ok, err := harness.PlainTable(ctx, tx, table, errNotPlain)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		// A conversations_v2 row's value is read only when its
		// conversation changed (value); an older row names its
		// conversation only inside its value, which is read here.
		q := `SELECT key, conversation_id, CAST(key AS TEXT), CAST(conversation_id AS TEXT), length(CAST(value AS BLOB)),
			NULL, created_at, updated_at
			FROM conversations_v2 ORDER BY created_at, conversation_id`
		var args []any
		if table == "conversations" {
			q = `SELECT NULL, NULL, CAST(key AS TEXT), '', length(CAST(value AS BLOB)),
				CASE WHEN length(CAST(value AS BLOB)) <= ? THEN CAST(value AS TEXT) END, 0, 0
				FROM conversations ORDER BY key`
			args = append(args, harness.MaxLine)
		}
		rs, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		for rs.Next() {
			var r row
			var key, id, value sql.NullString
			var created, updated sql.NullInt64
			if err := rs.Scan(&r.rawKey, &r.rawID, &key, &id, &r.size, &value, &created, &updated); err != nil {
				rs.Close()
				return nil, err
			}
			r.key, r.id, r.value, r.created, r.updated = key.String, id.String, value.String, created.Int64, updated.Int64
			r.legacy = table == "conversations"
			if r.legacy {
				// The row names its conversation only inside its value.
				r.id = conversationID([]byte(r.value))
				sum := fnv.New64a()
				sum.Write([]byte(r.value))
				r.marker = "q:" + strconv.FormatUint(sum.Sum64(), 16)
			} else {
				r.marker = strconv.FormatInt(r.updated, 10)
			}
			if r.legacy && !value.Valid {
				// Over the bound: counted, its id unknown.
				r.id = "over-" + r.key
			}
			if r.id == "" || seen[r.id] {
				continue
			}
			seen[r.id] = true
			rows = append(rows, r)
		}
		err = rs.Err()
		rs.Close()
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}
