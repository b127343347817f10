package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"modernc.org/sqlite"
)

// The ledger's checksum (schema 8). A turn's text is checked against the
// hash it was stored with, but a session's header, offsets, start or
// flags, or a turn's line, time or actions, had nothing to be checked
// against: a flipped byte there changed what recall shows and no check
// could tell, nor a history's offsets in files. meta's 'ledger' row holds
// the XOR of a hash of every row of files, sessions and turn_rows, which
// triggers keep as rows come and go, in the
// same transaction; Check adds the rows up again and compares. XOR needs
// no order, so a trigger only takes out the old row's hash and puts in the
// new one's.

// ledgerTable is a table the checksum covers, with its columns.
type ledgerTable struct{ Name, cols string }

// ledgerTables are the tables the checksum covers.
var LedgerTables = []ledgerTable{
	{"files", "path, project, size, mtime_ns, last_offset, last_ordinal, fingerprint, indexed_at, harness, full_pending"},
	{"sessions", "id, path, project, ordinal, started, started_ns, header, offset, end_offset, present, harness, parent, subagent, marker"},
	{"turn_rows", "id, session_id, turn, line, hash, user, assistant, files, commands, actions, time_ns, chars"},
	{"turn_work", "turn_id, work, end_ns"},
}

// ledgerKey is meta's row of the checksum.
const LedgerKey = "ledger"

// ledgerSchema creates the checksum's row and its triggers.
var ledgerSchema = func() string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT OR IGNORE INTO meta(key, value) VALUES ('%s', '0');\n", LedgerKey)
	for _, t := range LedgerTables {
		row := func(which string) string {
			cols := strings.Split(t.cols, ", ")
			for i, c := range cols {
				cols[i] = which + "." + c
			}
			return "'" + t.Name + "', " + strings.Join(cols, ", ")
		}
		for _, trig := range []struct{ event, sum string }{
			{"INSERT", "ledger_sum(value, " + row("new") + ")"},
			{"DELETE", "ledger_sum(value, " + row("old") + ")"},
			{"UPDATE", "ledger_sum(ledger_sum(value, " + row("old") + "), " + row("new") + ")"},
		} {
			fmt.Fprintf(&b, "CREATE TRIGGER IF NOT EXISTS %s_ledger_%s AFTER %s ON %s BEGIN\n\tUPDATE meta SET value = %s WHERE key = '%s';\nEND;\n",
				t.Name, strings.ToLower(trig.event[:1]), trig.event, t.Name, trig.sum, LedgerKey)
		}
	}
	return b.String()
}()

func init() {
	if err := sqlite.RegisterDeterministicScalarFunction("ledger_sum", -1, sqlLedgerSum); err != nil {
		panic(err)
	}
}

// sqlLedgerSum is ledger_sum(sum, table, columns...): sum, a checksum in
// hexadecimal, with the row's hash XORed in (or out: XOR is its own
// inverse).
func sqlLedgerSum(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("ledger_sum: want a sum and a row")
	}
	var sum uint64
	if s, ok := args[0].(string); ok {
		sum, _ = strconv.ParseUint(s, 16, 64)
	}
	return strconv.FormatUint(sum^rowHash(args[1:]), 16), nil
}

// rowHash hashes a row's values, each with its type and length, so no two
// rows share an encoding.
func rowHash(vals []driver.Value) uint64 {
	h := sha256.New()
	var buf [9]byte
	for _, v := range vals {
		switch v := v.(type) {
		case nil:
			h.Write([]byte{0})
		case int64:
			buf[0] = 1
			binary.LittleEndian.PutUint64(buf[1:], uint64(v))
			h.Write(buf[:])
		case float64:
			buf[0] = 2
			binary.LittleEndian.PutUint64(buf[1:], math.Float64bits(v))
			h.Write(buf[:])
		case string:
			buf[0] = 3
			binary.LittleEndian.PutUint64(buf[1:], uint64(len(v)))
			h.Write(buf[:])
			h.Write([]byte(v))
		case []byte:
			buf[0] = 4
			binary.LittleEndian.PutUint64(buf[1:], uint64(len(v)))
			h.Write(buf[:])
			h.Write(v)
		default:
			fmt.Fprintf(h, "%T %v", v, v)
		}
	}
	return binary.LittleEndian.Uint64(h.Sum(nil))
}

// ledgerSum adds up the checksum of the rows as they are now.
func LedgerSum(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (string, error) {
	var sum uint64
	for _, t := range LedgerTables {
		rows, err := q.QueryContext(ctx, `SELECT ledger_sum('0', '`+t.Name+`', `+t.cols+`) FROM `+t.Name)
		if err != nil {
			return "", err
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return "", err
			}
			v, _ := strconv.ParseUint(s, 16, 64)
			sum ^= v
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return "", err
		}
	}
	return strconv.FormatUint(sum, 16), nil
}
