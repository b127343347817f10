package zed

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sort"
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
	Created, Updated    time.Time
	DataType            string
	Marker              string
}

func readStore(ctx context.Context, tx *sql.Tx, path string, unchanged func(id, marker string) bool, lim harness.Limits) (*harness.History, error) {
	ok, err := harness.PlainTable(ctx, tx, "threads", errNotPlain)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("it has no threads table (%w)", errNotPlain)
	}
	rows, err := readThreads(ctx, tx)
	if err != nil {
		return nil, err
	}
	h := &harness.History{Path: path}
	skip := skipped{}
	var dec *zstd.Decoder
	defer func() {
		if dec != nil {
			dec.Close()
		}
	}()
	for _, r := range rows {
		id := IDPrefix + r.ID
		if !(Reader{}).ValidID(id) {
			skip.add("threads whose id is of no shape Zed gives")
			continue
		}
		s := harness.Session{ID: id, Marker: r.Marker}
		if unchanged == nil || !unchanged(id, r.Marker) {
			doc, err := readDocument(ctx, tx, r, lim, &dec, skip)
			if err != nil {
				return nil, err
			}
			// A document left unread (damaged, or over a bound) keeps
			// its marker: it stays as it is until Zed saves it again.
			s = buildSession(id, r, doc, skip)
		}
		s.Ordinal = len(h.Sessions) + 1
		h.Sessions = append(h.Sessions, s)
	}
	h.Warnings = skip.list()
	return h, nil
}

// readThreads reads the threads table in creation order, each row with
// its marker: its updated_at (written on every save, SaveThread), its
// data_type and its document's stored length, read without the value.
// parent_id, folder_paths and created_at are columns Zed added with ALTER
// TABLE as it ran (ThreadsDatabase::new), so a store an older Zed wrote
// lacks them. Values are cast: a store is a file anyone can hand deja.
func readThreads(ctx context.Context, tx *sql.Tx) ([]threadRow, error) {
	col := func(name string) (string, error) {
		var n int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('threads') WHERE name = ?`, name).Scan(&n)
		if n == 0 {
			return "''", err
		}
		return "COALESCE(CAST(" + name + " AS TEXT), '')", err
	}
	var cols [3]string
	for i, name := range []string{"parent_id", "folder_paths", "created_at"} {
		c, err := col(name)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	rows, err := tx.QueryContext(ctx, `SELECT CAST(id AS TEXT), `+cols[0]+`, `+cols[1]+`, `+cols[2]+`,
			COALESCE(CAST(updated_at AS TEXT), ''), COALESCE(CAST(data_type AS TEXT), ''), COALESCE(octet_length(data), 0)
		FROM threads WHERE id IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []threadRow
	for rows.Next() {
		var r threadRow
		var created, updated string
		var size int64
		if err := rows.Scan(&r.ID, &r.Parent, &r.Folders, &created, &updated, &r.DataType, &size); err != nil {
			return nil, err
		}
		r.Created, r.Updated = parseTime(created), parseTime(updated)
		if r.Created.IsZero() {
			// A store from before created_at: Zed then fills it from
			// updated_at.
			r.Created = r.Updated
		}
		r.Marker = fmt.Sprintf("%s/%s/%d", updated, r.DataType, size)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// readDocument reads a thread's document as JSON, nil (counted in skip)
// when it cannot be had within lim.
func readDocument(ctx context.Context, tx *sql.Tx, r threadRow, lim harness.Limits, dec **zstd.Decoder, skip skipped) ([]byte, error) {
	line, decoded := lim.Line, lim.Decoded
	if line <= 0 {
		line = harness.MaxLine
	}
	if decoded <= 0 {
		decoded = harness.MaxDecoded
	}
	if r.DataType != "zstd" && r.DataType != "json" {
		skip.add("threads of unknown data_type " + harness.Quoted(r.DataType))
		return nil, nil
	}
	var data []byte
	var over bool
	err := tx.QueryRowContext(ctx, `SELECT COALESCE(octet_length(data) > ?, 0), CASE WHEN octet_length(data) <= ? THEN CAST(data AS BLOB) END
		FROM threads WHERE CAST(id AS TEXT) = ?`, line, line, r.ID).Scan(&over, &data)
	switch {
	case err != nil:
		return nil, err
	case over:
		skip.add(fmt.Sprintf("threads stored in more than %s", sizeOf(int64(line))))
		return nil, nil
	case r.DataType == "json":
		return data, nil
	}
	if *dec == nil {
		// A frame whose window is over the decoded bound is refused as
		// its header is read, before memory is taken for it; 8 MB is the
		// window of zstd's default levels, whatever a test's bound.
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max(decoded, 8<<20))))
		if err != nil {
			return nil, err
		}
		*dec = d
	}
	tooLarge := fmt.Sprintf("threads that decompress to more than %s", sizeOf(decoded))
	err = (*dec).Reset(bytes.NewReader(data))
	var out []byte
	if err == nil {
		out, err = io.ReadAll(io.LimitReader(*dec, decoded+1))
	}
	switch {
	case errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) || err == nil && int64(len(out)) > decoded:
		skip.add(tooLarge)
		return nil, nil
	case err != nil:
		skip.add("threads whose zstd data is damaged")
		return nil, nil
	}
	return out, nil
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

// sizeOf writes a bound in MB, or in bytes for a test's small ones.
func sizeOf(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
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
