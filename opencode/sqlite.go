package opencode

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver deja already links, registered as "sqlite"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// ReadStore reads every session of an OpenCode SQLite store (≥ 1.2,
// FORMATS.md §4.1, §4.4).
//
// The store is opened read-only (mode=ro), inside one read transaction so
// the three tables are read at one moment while OpenCode writes. OpenCode
// runs the store in WAL mode, where a reader takes no lock a writer waits
// on, and committed rows may live only in the -wal file, so the store is
// read through SQLite with its -wal and -shm, never copied alone. When a
// read-only open cannot work (the directory is read-only and holds no
// -shm), it is opened as immutable instead, which reads the main file
// without locking and without the WAL, and a warning says so.
func ReadStore(ctx context.Context, path string) (*harness.History, error) {
	h, err := readStore(ctx, path, false)
	if err == nil {
		return h, nil
	}
	h, err2 := readStore(ctx, path, true)
	if err2 != nil {
		return nil, fmt.Errorf("opencode: cannot read %s: %w; check that it is OpenCode's opencode.db and readable", path, err)
	}
	h.Warnings = append(h.Warnings, fmt.Sprintf("%s could not be opened with its write-ahead log (%v); read without it, so the newest messages may be missing", path, err))
	return h, nil
}

func storeDSN(path string, immutable bool) string {
	if abs, err := filepath.Abs(path); err == nil {
		// A relative path would read as a URI authority.
		path = abs
	}
	q := url.Values{}
	q.Set("mode", "ro")
	if immutable {
		q.Set("immutable", "1")
	}
	q.Add("_pragma", "busy_timeout(5000)")
	// Reading through a memory map instead of a read call per page is
	// what keeps a store of hundreds of megabytes at the rate the README
	// reports.
	q.Add("_pragma", "mmap_size(1073741824)")
	return (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
}

func readStore(ctx context.Context, path string, immutable bool) (*harness.History, error) {
	db, err := sql.Open("sqlite", storeDSN(path, immutable))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	// A read-only transaction changes nothing; rolling back ends it.
	defer tx.Rollback()

	sessions, order, err := readSessions(ctx, tx)
	if err != nil {
		return nil, err
	}
	h := &harness.History{Path: path}
	skip := skipped{}
	msgs, err := readMessages(ctx, tx, sessions, skip)
	if err != nil {
		return nil, err
	}
	if err := readParts(ctx, tx, sessions, msgs, skip); err != nil {
		return nil, err
	}
	h.Warnings = skip.list()
	bySession := map[string][]messageInfo{}
	for _, m := range msgs.list {
		bySession[m.Session] = append(bySession[m.Session], *m)
	}
	for i, id := range order {
		s := buildSession(*sessions[id], bySession[id])
		s.Ordinal = i + 1
		h.Sessions = append(h.Sessions, s)
	}
	return h, nil
}

// readSessions reads the session table in creation order.
func readSessions(ctx context.Context, tx *sql.Tx) (map[string]*sessionInfo, []string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, COALESCE(parent_id, ''), directory, time_created, time_updated
		FROM session ORDER BY time_created, id`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	sessions := map[string]*sessionInfo{}
	var order []string
	for rows.Next() {
		var s sessionInfo
		var dir sql.NullString
		if err := rows.Scan(&s.ID, &s.ParentID, &dir, &s.Created, &s.Updated); err != nil {
			return nil, nil, err
		}
		s.Directory, s.Changed = dir.String, s.Updated
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

// readMessages reads the message table, each message's data decoded
// from the row's bytes (read as a BLOB, which the driver hands over as
// bytes, where TEXT would be copied into a string first).
func readMessages(ctx context.Context, tx *sql.Tx, sessions map[string]*sessionInfo, skip skipped) (messageSet, error) {
	set := messageSet{byID: map[string]*messageInfo{}}
	rows, err := tx.QueryContext(ctx, `SELECT id, session_id, time_created, time_updated, CAST(data AS BLOB)
		FROM message ORDER BY session_id, time_created, id`)
	if err != nil {
		return set, err
	}
	defer rows.Close()
	var sc jsonscan.Scanner
	for rows.Next() {
		var m messageInfo
		var updated int64
		var data sql.RawBytes
		if err := rows.Scan(&m.ID, &m.Session, &m.Created, &updated, &data); err != nil {
			return set, err
		}
		s := sessions[m.Session]
		if s == nil {
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
		s.Changed = max(s.Changed, updated)
		set.byID[m.ID] = &m
		set.list = append(set.list, &m)
	}
	return set, rows.Err()
}

// readParts reads the part table into the messages, in id order.
func readParts(ctx context.Context, tx *sql.Tx, sessions map[string]*sessionInfo, msgs messageSet, skip skipped) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, message_id, time_updated, CAST(data AS BLOB) FROM part`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var sc jsonscan.Scanner
	for rows.Next() {
		var p partInfo
		var updated int64
		var data sql.RawBytes
		if err := rows.Scan(&p.ID, &p.Message, &updated, &data); err != nil {
			return err
		}
		m := msgs.byID[p.Message]
		if m == nil {
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
		if s := sessions[m.Session]; s != nil {
			s.Changed = max(s.Changed, updated)
			s.Parts++
		}
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
