package zed

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/harness"
)

// ReadStore reads every thread of Zed's store at path. A thread that
// unchanged says the caller holds with its marker comes back with its ID
// and Marker alone, its document unread (harness.ParseOptions.Unchanged).
// lim bounds a document: its stored bytes by lim's line bound (as one JSON
// record), its decompressed bytes by its decoded bound; a document over
// either is counted and left unread.
//
// The store is opened read-only inside one read transaction, with its
// write-ahead log, where Zed's newest saves may live alone, and is read
// without it, with a warning, only when that cannot be done
// (harness.ReadSQLite); threads must be a plain table.
func ReadStore(ctx context.Context, path string, unchanged func(id, marker string) bool, lim harness.Limits) (*harness.History, error) {
	return harness.ReadSQLite(ctx, path, Name, "Zed's threads.db", errNotPlain, func(tx *sql.Tx) (*harness.History, error) {
		return readStore(ctx, tx, path, unchanged, lim)
	})
}

// errNotPlain is wrapped by the error for a store whose threads table is
// not a plain table.
var errNotPlain = errors.New("a Zed store holds a plain threads table")

// threadRow is one row of the threads table, without its document.
type threadRow struct {
	ID, Parent, Folders string
	Created             time.Time
	DataType, Marker    string
}

// readStore reads the threads table in creation order (created_at is
// RFC 3339 text of one offset, which sorts as time does), each row with its
// marker: its updated_at (written on every save, save_thread_sync), its
// data_type and its document's stored length, read without the value.
// parent_id, folder_paths and created_at are columns Zed added with ALTER
// TABLE as it ran (ThreadsDatabase::new), so a store an older Zed wrote
// lacks them. Values are cast: a store is a file anyone can hand deja.
func readStore(ctx context.Context, tx *sql.Tx, path string, unchanged func(id, marker string) bool, lim harness.Limits) (*harness.History, error) {
	ok, err := harness.PlainTable(ctx, tx, "threads", errNotPlain)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("it has no threads table (%w)", errNotPlain)
	}
	// The columns an older store lacks are added as NULL after the
	// table's own, which keep their names where they exist (SQLite
	// renames a subquery's second column of a name to name:1).
	rows, err := tx.QueryContext(ctx, `SELECT CAST(id AS TEXT), COALESCE(CAST(parent_id AS TEXT), ''), COALESCE(CAST(folder_paths AS TEXT), ''),
			COALESCE(CAST(created_at AS TEXT), CAST(updated_at AS TEXT), '') AS created, COALESCE(CAST(data_type AS TEXT), ''),
			COALESCE(CAST(updated_at AS TEXT), '') || '/' || COALESCE(data_type, '') || '/' || COALESCE(octet_length(data), 0)
		FROM (SELECT *, NULL AS parent_id, NULL AS folder_paths, NULL AS created_at FROM threads) WHERE id IS NOT NULL ORDER BY created, 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []threadRow
	for rows.Next() {
		var r threadRow
		var created string
		if err := rows.Scan(&r.ID, &r.Parent, &r.Folders, &created, &r.DataType, &r.Marker); err != nil {
			return nil, err
		}
		// A store from before created_at has updated_at alone: Zed then
		// fills created_at from it.
		r.Created = parseTime(created)
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	h := &harness.History{Path: path}
	skip := skipped{}
	var dec *zstd.Decoder
	defer func() {
		if dec != nil {
			dec.Close()
		}
	}()
	for _, r := range list {
		s := harness.Session{ID: IDPrefix + r.ID, Marker: r.Marker}
		if !(Reader{}).ValidID(s.ID) {
			skip.add("threads whose id is of no shape Zed gives")
			continue
		}
		if unchanged == nil || !unchanged(s.ID, r.Marker) {
			// A document left unread (damaged, or over a bound) keeps
			// its marker: it stays as it is until Zed saves it again.
			doc, why, err := readDocument(ctx, tx, r, lim, &dec)
			if err != nil {
				return nil, err
			}
			if why != "" {
				skip.add(why)
			}
			s = buildSession(s.ID, r, doc, skip)
		}
		s.Ordinal = len(h.Sessions) + 1
		h.Sessions = append(h.Sessions, s)
	}
	h.Warnings = skip.list()
	return h, nil
}

// readDocument reads a thread's document as JSON, nil with the kind of
// what it left out when it cannot be had within lim.
func readDocument(ctx context.Context, tx *sql.Tx, r threadRow, lim harness.Limits, dec **zstd.Decoder) ([]byte, string, error) {
	line, decoded := int64(lim.Line), lim.Decoded
	if line <= 0 {
		line = harness.MaxLine
	}
	if decoded <= 0 {
		decoded = harness.MaxDecoded
	}
	if r.DataType != "zstd" && r.DataType != "json" {
		return nil, "threads of a data_type Zed does not write", nil
	}
	var data []byte
	err := tx.QueryRowContext(ctx, `SELECT CASE WHEN octet_length(data) <= ? THEN CAST(data AS BLOB) END FROM threads WHERE CAST(id AS TEXT) = ?`, line, r.ID).Scan(&data)
	switch {
	case err != nil:
		return nil, "", err
	case data == nil:
		return nil, "threads over deja's size bound", nil
	case r.DataType == "json":
		return data, "", nil
	}
	if *dec == nil {
		// A frame whose window is over the decoded bound is refused as
		// its header is read, before memory is taken for it; 8 MB is the
		// window of zstd's default levels, whatever a test's bound.
		if *dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max(decoded, 8<<20)))); err != nil {
			return nil, "", err
		}
	}
	var out []byte
	if err = (*dec).Reset(bytes.NewReader(data)); err == nil {
		out, err = io.ReadAll(io.LimitReader(*dec, decoded+1))
	}
	if err != nil {
		// A frame whose window is over the bound fails here too.
		return nil, "threads whose zstd data is damaged or over deja's size bound", nil
	}
	if int64(len(out)) > decoded {
		return nil, "threads over deja's size bound", nil
	}
	return out, "", nil
}

// parseTime reads a time Zed wrote (chrono's to_rfc3339: "+00:00", not
// "Z"); anything else is no time.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() < 1970 {
		return time.Time{}
	}
	return t.UTC()
}

// skipped counts what a read left out, by kind, so a damaged store yields
// one warning per kind.
type skipped map[string]int

func (s skipped) add(what string) { s[what]++ }

func (s skipped) list() []string {
	var out []string
	for what, n := range s {
		out = append(out, "skipped "+what+": "+strconv.Itoa(n))
	}
	sort.Strings(out)
	return out
}
