package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// ReadStore reads every session of an OpenCode SQLite store (≥ 1.2,
// FORMATS.md §4.1, §4.4). A session that unchanged says the caller holds
// with its marker comes back with its ID and Marker alone, its rows
// unread (harness.ParseOptions.Unchanged).
//
// The store is opened read-only (mode=ro), inside one read transaction so
// the three tables are read at one moment while OpenCode writes. OpenCode
// runs the store in WAL mode, where a reader takes no lock a writer waits
// on, and committed rows may live only in the -wal file, so the store is
// read through SQLite with its -wal and -shm, never copied alone. When a
// read-only open cannot work (the directory is read-only and holds no
// -shm), it is opened as immutable instead, which reads the main file
// without locking and without the WAL, and a warning says so.
//
// A store is a file anyone can hand deja, so it is read only through
// bounded queries: session, message and part must be plain tables (a
// view, say a recursive one yielding rows without end, or a generated
// column is refused), and a row's data over harness.MaxLine is counted
// and left unread.
func ReadStore(ctx context.Context, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	return harness.ReadSQLite(ctx, path, "opencode", "OpenCode's opencode.db", errNotPlain, func(tx *sql.Tx) (*harness.History, error) {
		return readStore(ctx, tx, path, unchanged)
	})
}

func readStore(ctx context.Context, tx *sql.Tx, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	if err := plainTables(ctx, tx); err != nil {
		return nil, err
	}
	sessions, order, err := readSessions(ctx, tx)
	if err != nil {
		return nil, err
	}
	h := &harness.History{Path: path}
	var changed []string
	for _, id := range order {
		s := sessions[id]
		if unchanged == nil || !unchanged(IDPrefix+id, marker(*s)) {
			changed = append(changed, id)
		}
	}
	skip := skipped{}
	msgs := messageSet{byID: map[string]*messageInfo{}}
	if len(changed) > 0 {
		// The rows of the changed sessions; all rows, unfiltered, when
		// every session changed (a first index).
		var ids []byte
		if len(changed) < len(order) {
			if ids, err = json.Marshal(changed); err != nil {
				return nil, err
			}
		}
		if msgs, err = readMessages(ctx, tx, ids, sessions, skip); err != nil {
			return nil, err
		}
		if err := readParts(ctx, tx, ids, msgs, skip); err != nil {
			return nil, err
		}
	}
	h.Warnings = skip.list()
	bySession := map[string][]messageInfo{}
	for _, m := range msgs.list {
		bySession[m.Session] = append(bySession[m.Session], *m)
	}
	read := map[string]bool{}
	for _, id := range changed {
		read[id] = true
	}
	for i, id := range order {
		s := harness.Session{ID: IDPrefix + id, Marker: marker(*sessions[id])}
		if read[id] {
			s = buildSession(*sessions[id], bySession[id])
		}
		s.Ordinal = i + 1
		h.Sessions = append(h.Sessions, s)
	}
	return h, nil
}

// errNotPlain is wrapped by the error for a store whose tables are not
// plain tables.
var errNotPlain = errors.New("OpenCode's own store holds plain tables")

// plainTables checks that session, message and part are tables whose
// rows are stored: a view runs a query of the file's choosing on every
// read (a recursive one yields rows without end, and grew memory past
// 8 GB), and a virtual table or a generated column computes what it
// returns.
func plainTables(ctx context.Context, tx *sql.Tx) error {
	for _, name := range []string{"session", "message", "part"} {
		ok, err := harness.PlainTable(ctx, tx, name, errNotPlain)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("it has no %s table (%w)", name, errNotPlain)
		}
	}
	return nil
}

// marker is a session's change marker.
func marker(s sessionInfo) string { return fmt.Sprintf("%d/%d", s.Changed, s.Parts) }

// readSessions reads the session table in creation order, each session
// with its marker: the latest update of the session, its messages and
// its parts, and how many message and part rows it has (a part by its
// own session_id), read from the rows' small columns without their data.
func readSessions(ctx context.Context, tx *sql.Tx) (map[string]*sessionInfo, []string, error) {
	rows, err := tx.QueryContext(ctx, `WITH
		m AS (SELECT session_id, max(time_updated) AS updated, count(*) AS n FROM message GROUP BY session_id),
		p AS (SELECT session_id, max(time_updated) AS updated, count(*) AS n FROM part GROUP BY session_id)
		SELECT s.id, COALESCE(s.parent_id, ''), s.directory, s.time_created, s.time_updated,
			max(s.time_updated, COALESCE(m.updated, 0), COALESCE(p.updated, 0)), COALESCE(m.n, 0) + COALESCE(p.n, 0)
		FROM session AS s LEFT JOIN m ON m.session_id = s.id LEFT JOIN p ON p.session_id = s.id
		ORDER BY s.time_created, s.id`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	sessions := map[string]*sessionInfo{}
	var order []string
	for rows.Next() {
		var s sessionInfo
		var dir sql.NullString
		if err := rows.Scan(&s.ID, &s.ParentID, &dir, &s.Created, &s.Updated, &s.Changed, &s.Parts); err != nil {
			return nil, nil, err
		}
		s.Directory = dir.String
		sessions[s.ID] = &s
		order = append(order, s.ID)
	}
	return sessions, order, rows.Err()
}

// messageSet holds the messages read, by id and in order.
type messageSet struct {
	byID map[string]*messageInfo
	list []*messageInfo
}

// dataColumn selects a row's data as bytes (a BLOB, which the driver
// hands over as bytes, where TEXT would be copied into a string first),
// or NULL when it is over harness.MaxLine: octet_length reads the
// length from the record without the value.
var dataColumn = fmt.Sprintf(`CASE WHEN octet_length(data) <= %d THEN CAST(data AS BLOB) END`, harness.MaxLine)

// ofSessions is the condition on a message's session_id that keeps the
// sessions named in ids (a JSON array), none when ids is nil (all).
func ofSessions(ids []byte) (string, []any) {
	if ids == nil {
		return "1", nil
	}
	return "session_id IN (SELECT value FROM json_each(?))", []any{ids}
}

// readMessages reads the message rows of the sessions named in ids (a
// JSON array; nil: every session), each message's data decoded from the
// row's bytes.
func readMessages(ctx context.Context, tx *sql.Tx, ids []byte, sessions map[string]*sessionInfo, skip skipped) (messageSet, error) {
	set := messageSet{byID: map[string]*messageInfo{}}
	cond, args := ofSessions(ids)
	rows, err := tx.QueryContext(ctx, `SELECT id, session_id, time_created, `+dataColumn+`
		FROM message WHERE `+cond+` ORDER BY session_id, time_created, id`, args...)
	if err != nil {
		return set, err
	}
	defer rows.Close()
	var sc jsonscan.Scanner
	for rows.Next() {
		var m messageInfo
		var data sql.RawBytes
		if err := rows.Scan(&m.ID, &m.Session, &m.Created, &data); err != nil {
			return set, err
		}
		if sessions[m.Session] == nil {
			continue
		}
		if data == nil {
			skip.add(fmt.Sprintf("messages over %d MB", harness.MaxLine>>20))
			continue
		}
		id, session, created := m.ID, m.Session, m.Created
		if !decodeMessage(&sc, data, &m) {
			skip.add("messages whose data is not JSON")
			continue
		}
		if skip.unknownRole(&m) {
			continue
		}
		// The row's columns name the message; data omits them
		// (json-migration.ts deletes id and sessionID before insert).
		m.ID, m.Session = id, session
		if created != 0 {
			m.Created = created
		}
		set.byID[m.ID] = &m
		set.list = append(set.list, &m)
	}
	return set, rows.Err()
}

// readParts reads the part rows of the messages of the sessions named in
// ids (nil: every session) into the messages, in id order.
func readParts(ctx context.Context, tx *sql.Tx, ids []byte, msgs messageSet, skip skipped) error {
	query := `SELECT id, message_id, ` + dataColumn + ` FROM part`
	cond, args := ofSessions(ids)
	if ids != nil {
		query += ` WHERE message_id IN (SELECT id FROM message WHERE ` + cond + `)`
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var sc jsonscan.Scanner
	for rows.Next() {
		var p partInfo
		var data sql.RawBytes
		if err := rows.Scan(&p.ID, &p.Message, &data); err != nil {
			return err
		}
		m := msgs.byID[p.Message]
		if m == nil {
			continue
		}
		if data == nil {
			skip.add(fmt.Sprintf("parts over %d MB", harness.MaxLine>>20))
			continue
		}
		id := p.ID
		if !decodePart(&sc, data, &p) {
			skip.add("parts whose data is not JSON")
			continue
		}
		if skip.unknownPart(&p) {
			continue
		}
		p.ID, p.Message = id, m.ID
		m.Parts = append(m.Parts, p)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, m := range msgs.list {
		sort.Slice(m.Parts, func(i, j int) bool { return m.Parts[i].ID < m.Parts[j].ID })
	}
	return nil
}

// errNotStore is Sniff's answer for a file that is not OpenCode's store.
var errNotStore = errors.New("not an OpenCode store (opencode.db or opencode-<channel>.db, SQLite)")
