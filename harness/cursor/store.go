package cursor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver deja already links, registered as "sqlite"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// storeName is the file name of every Cursor IDE store.
const storeName = "state.vscdb"

// The keys this package reads, and nothing else: the 2024 layout's
// workspace key, and the 2025 layout's key ranges. A range is [from, to):
// ';' is the byte after ':', so it ends every key that starts with the
// prefix. Ranges compare bytes, where LIKE would fold case and read '_' as
// a wildcard.
const (
	inlineKey      = "composer.composerData"
	panelKey       = "workbench.panel.aichat.view.aichat.chatdata"
	composerPrefix = "composerData:"
	bubblePrefix   = "bubbleId:"
)

// rangeEnd is the first key after every key that starts with prefix, a
// prefix ending in ':'.
func rangeEnd(prefix string) string { return prefix[:len(prefix)-1] + ";" }

// valueColumn selects a row's value as bytes, or NULL when it is over
// harness.MaxLine: octet_length reads the length without the value.
var valueColumn = fmt.Sprintf(`CASE WHEN octet_length(value) <= %d THEN CAST(value AS BLOB) END`, harness.MaxLine)

// maxWorkspaces bounds the workspace stores read to learn the projects of
// a global store's conversations.
const maxWorkspaces = 4096

// ReadStore reads every conversation of a Cursor state.vscdb: the 2024
// layout's inline conversations in ItemTable and the 2025 layout's
// composerData and bubbleId rows in cursorDiskKV. A conversation that
// unchanged says the caller holds with its marker comes back with its ID
// and Marker alone, its rows unread (harness.ParseOptions.Unchanged).
//
// The store is opened read-only, inside one read transaction, with its
// write-ahead log; when that cannot be done (a read-only directory with no
// -shm) it is opened as immutable, without the log, and a warning says so.
// Its tables must be plain tables: a view or a virtual table runs code of
// the file's choosing on every read.
func ReadStore(ctx context.Context, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	return harness.ReadSQLite(ctx, path, "cursor", "Cursor's state.vscdb", errNotPlain, func(tx *sql.Tx) (*harness.History, error) {
		st, err := newStore(ctx, tx)
		if err != nil {
			return nil, err
		}
		return readStore(ctx, st, path, unchanged)
	})
}

// errNotPlain is wrapped by the error for a store whose tables are not
// plain tables.
var errNotPlain = errors.New("a Cursor store holds plain tables")

// store is one open store inside its read transaction.
type store struct {
	tx            *sql.Tx
	items, diskKV bool // which of ItemTable and cursorDiskKV it has
}

// openStore opens path and begins a read transaction (harness.OpenStore);
// done ends both.
func openStore(ctx context.Context, path string, immutable bool) (*store, func(), error) {
	tx, done, err := harness.OpenStore(ctx, path, immutable)
	if err != nil {
		return nil, nil, err
	}
	s, err := newStore(ctx, tx)
	if err != nil {
		done()
		return nil, nil, err
	}
	return s, done, nil
}

// newStore is the store read in tx, once its tables are known plain.
func newStore(ctx context.Context, tx *sql.Tx) (*store, error) {
	s := &store{tx: tx}
	var err error
	if s.items, err = harness.PlainTable(ctx, tx, "ItemTable", errNotPlain); err == nil {
		s.diskKV, err = harness.PlainTable(ctx, tx, "cursorDiskKV", errNotPlain)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// inlineValue is the ItemTable value of composer.composerData, nil when
// the store has none; over is set when it is over harness.MaxLine.
func (s *store) inlineValue(ctx context.Context) (value []byte, over bool, err error) {
	return s.itemValue(ctx, inlineKey)
}

// itemValue is the ItemTable value of key, one of the chat keys; nil when
// the store has none; over is set when it is over harness.MaxLine.
func (s *store) itemValue(ctx context.Context, key string) (value []byte, over bool, err error) {
	if !s.items || (key != inlineKey && key != panelKey) {
		return nil, false, nil
	}
	var v []byte
	var size int64
	err = s.tx.QueryRowContext(ctx, `SELECT `+valueColumn+`, octet_length(value) FROM ItemTable WHERE key = ?`, key).Scan(&v, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return v, v == nil && size > 0, err
}

// composerRow is what the cheap pass over a 2025-layout store knows of
// one conversation: its marker.
type composerRow struct {
	ID     string
	Marker string
}

// composerRows lists the composerData rows, in key order, each with a
// marker made of its own row and the rows of its bubbles: Cursor writes a
// row by replacing it (ON CONFLICT REPLACE), which gives it a new rowid,
// so the largest rowid changes with every write, and the count and total
// length change when a bubble goes or grows.
func (s *store) composerRows(ctx context.Context) ([]composerRow, error) {
	if !s.diskKV {
		return nil, nil
	}
	type agg struct{ n, size, rowid int64 }
	bubbles := map[string]agg{}
	rows, err := s.tx.QueryContext(ctx, `SELECT substr(key, ?, instr(substr(key, ?), ':') - 1) AS c, count(*), sum(octet_length(value)), max(rowid)
		FROM cursorDiskKV WHERE key >= ? AND key < ? GROUP BY c`,
		len(bubblePrefix)+1, len(bubblePrefix)+1, bubblePrefix, rangeEnd(bubblePrefix))
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var c string
		var a agg
		var size sql.NullInt64
		if err := rows.Scan(&c, &a.n, &size, &a.rowid); err != nil {
			rows.Close()
			return nil, err
		}
		a.size = size.Int64
		bubbles[c] = a
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = s.tx.QueryContext(ctx, `SELECT substr(key, ?), rowid, octet_length(value)
		FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY key`,
		len(composerPrefix)+1, composerPrefix, rangeEnd(composerPrefix))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []composerRow
	for rows.Next() {
		var c composerRow
		var rowid int64
		var size sql.NullInt64
		if err := rows.Scan(&c.ID, &rowid, &size); err != nil {
			return nil, err
		}
		b := bubbles[c.ID]
		c.Marker = fmt.Sprintf("%d.%d/%d.%d.%d", rowid, size.Int64, b.rowid, b.n, b.size)
		out = append(out, c)
	}
	return out, rows.Err()
}

// subagentParents maps each conversation another ran to the one that ran
// it, from every composerData row's subComposerIds, read by SQLite's own
// JSON reader so that a parent whose row is unchanged still links its
// subagents.
func (s *store) subagentParents(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	rows, err := s.tx.QueryContext(ctx, `SELECT substr(key, ?),
		CASE WHEN octet_length(value) <= ? AND json_valid(CAST(value AS TEXT)) THEN json_extract(CAST(value AS TEXT), '$.subComposerIds') END
		FROM cursorDiskKV WHERE key >= ? AND key < ?`,
		len(composerPrefix)+1, harness.MaxLine, composerPrefix, rangeEnd(composerPrefix))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var sc jsonscan.Scanner
	for rows.Next() {
		var id string
		var subs sql.NullString
		if err := rows.Scan(&id, &subs); err != nil {
			return nil, err
		}
		if !subs.Valid {
			continue
		}
		sc.Reset([]byte(subs.String))
		sc.Array(func() {
			if sub := sc.String(); harness.IsUUID(sub) && sub != id {
				out[sub] = id
			}
		})
	}
	return out, rows.Err()
}

// composerValue is the composerData row of one conversation, nil when it
// is over harness.MaxLine or gone.
func (s *store) composerValue(ctx context.Context, id string) ([]byte, error) {
	var v []byte
	err := s.tx.QueryRowContext(ctx, `SELECT `+valueColumn+` FROM cursorDiskKV WHERE key = ?`, composerPrefix+id).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return v, err
}

// bubbleRows calls each with the bubble id and value of every bubbleId row
// of one conversation; value is nil for a row over harness.MaxLine.
func (s *store) bubbleRows(ctx context.Context, id string, each func(bubble string, value []byte)) error {
	prefix := bubblePrefix + id + ":"
	rows, err := s.tx.QueryContext(ctx, `SELECT key, `+valueColumn+` FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY key`, prefix, rangeEnd(prefix))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var v sql.RawBytes
		if err := rows.Scan(&key, &v); err != nil {
			return err
		}
		bubble, ok := strings.CutPrefix(key, prefix)
		if !ok {
			// The range holds only keys with the prefix; a store whose
			// collation says otherwise is not read further.
			return fmt.Errorf("row %q is outside the conversation's keys", harness.Quoted(key))
		}
		each(bubble, v)
	}
	return rows.Err()
}

// composerKeys lists the conversation ids a store's composerData rows
// name, reading the keys alone.
func (s *store) composerKeys(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	if !s.diskKV {
		return out, nil
	}
	rows, err := s.tx.QueryContext(ctx, `SELECT substr(key, ?) FROM cursorDiskKV WHERE key >= ? AND key < ?`, len(composerPrefix)+1, composerPrefix, rangeEnd(composerPrefix))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

func readStore(ctx context.Context, st *store, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	h := &harness.History{Path: path}
	skip := skipped{}
	inline, over, err := st.inlineValue(ctx)
	if err != nil {
		return nil, err
	}
	if over {
		skip.add(fmt.Sprintf("%s values over %d MB", inlineKey, harness.MaxLine>>20))
	}
	rows, err := st.composerRows(ctx)
	if err != nil {
		return nil, err
	}
	// The links and projects of the conversations read again, looked up
	// once one is.
	var parents, projects map[string]string
	ordinal := 0
	add := func(s harness.Session) {
		ordinal++
		s.Ordinal = ordinal
		h.Sessions = append(h.Sessions, s)
	}
	seen := map[string]bool{}
	inlined := decodeInline(inline, skip)
	if hasConversation(inlined) {
		project := workspaceFolder(filepath.Dir(path))
		global := globalKeys(ctx, path)
		for _, row := range rows {
			// The same store's newer layout wins too.
			if global == nil {
				global = map[string]bool{}
			}
			global[row.ID] = true
		}
		for _, c := range inlined {
			if c.ID == "" || seen[c.ID] || global[c.ID] || len(c.Conversation) == 0 {
				// A conversation the global store holds too is read
				// there, in its newer layout.
				continue
			}
			seen[c.ID] = true
			id := IDPrefix + c.ID
			marker := c.Marker
			if unchanged != nil && unchanged(id, marker) {
				add(harness.Session{ID: id, Marker: marker})
				continue
			}
			s, warn := buildSession(id, c, project, "")
			s.Marker = marker
			if len(s.Messages) == 0 {
				continue
			}
			if warn != "" && (Reader{}).ValidID(s.ID) {
				// A session of another shape is refused, its ID unshown.
				h.Warnings = append(h.Warnings, warn)
			}
			add(s)
		}
	}
	panel, over, err := st.itemValue(ctx, panelKey)
	if err != nil {
		return nil, err
	}
	if over {
		skip.add(fmt.Sprintf("%s values over %d MB", panelKey, harness.MaxLine>>20))
	}
	if panel != nil {
		project := workspaceFolder(filepath.Dir(path))
		for _, tab := range decodePanel(panel, skip) {
			id := panelPrefix + tab.ID
			if seen[id] || len(tab.Conversation) == 0 {
				continue
			}
			seen[id] = true
			if unchanged != nil && unchanged(id, tab.Marker) {
				add(harness.Session{ID: id, Marker: tab.Marker})
				continue
			}
			// Created is the tab's lastSendTime, when it last sent: the
			// one time it has.
			s, warn := buildSession(id, tab, project, "")
			s.Marker = tab.Marker
			if len(s.Messages) == 0 {
				continue
			}
			if warn != "" && (Reader{}).ValidID(id) {
				h.Warnings = append(h.Warnings, warn)
			}
			add(s)
		}
	}
	var sc jsonscan.Scanner
	for _, row := range rows {
		if seen[row.ID] {
			continue
		}
		seen[row.ID] = true
		id := IDPrefix + row.ID
		if unchanged != nil && unchanged(id, row.Marker) {
			add(harness.Session{ID: id, Marker: row.Marker})
			continue
		}
		if parents == nil {
			if parents, err = st.subagentParents(ctx); err != nil {
				return nil, err
			}
			projects = workspaceProjects(ctx, path)
		}
		v, err := st.composerValue(ctx, row.ID)
		if err != nil {
			return nil, err
		}
		if v == nil {
			skip.add(fmt.Sprintf("conversations over %d MB", harness.MaxLine>>20))
			continue
		}
		c, ok := decodeComposer(&sc, v)
		if !ok {
			skip.add("conversations whose data is not JSON")
			continue
		}
		c.ID = row.ID
		bubbles := map[string]bubble{}
		var order []string
		err = st.bubbleRows(ctx, row.ID, func(key string, value []byte) {
			if value == nil {
				skip.add(fmt.Sprintf("messages over %d MB", harness.MaxLine>>20))
				return
			}
			b, ok := decodeBubble(&sc, value)
			if !ok {
				if !isNull(value) {
					skip.add("messages whose data is not JSON")
				}
				return
			}
			bubbles[key] = b
			order = append(order, key)
		})
		if err != nil {
			return nil, err
		}
		c.Conversation = conversation(c, bubbles, order)
		if len(c.Conversation) == 0 {
			// An empty composer: opened, never sent.
			continue
		}
		parent := ""
		if p := parents[row.ID]; p != "" {
			parent = IDPrefix + p
		}
		s, warn := buildSession(id, c, projects[row.ID], parent)
		s.Marker = row.Marker
		if len(s.Messages) == 0 {
			continue
		}
		if warn != "" && (Reader{}).ValidID(s.ID) {
			h.Warnings = append(h.Warnings, warn)
		}
		add(s)
	}
	h.Warnings = append(h.Warnings, skip.list()...)
	return h, nil
}

// hasConversation reports whether any of cs holds messages inline (a
// 2025-layout workspace store lists its conversations by id alone).
func hasConversation(cs []composer) bool {
	for _, c := range cs {
		if len(c.Conversation) > 0 {
			return true
		}
	}
	return false
}

// conversation orders a 2025-layout conversation's bubbles: as its
// fullConversationHeadersOnly lists them, each from its bubbleId row or,
// in composers that kept them inline, from conversationMap; a conversation
// with no headers keeps its inline conversation, or its rows in key order.
// Rows the headers do not name are left out: they are messages Cursor
// dropped from the conversation (a reverted checkpoint).
func conversation(c composer, rows map[string]bubble, order []string) []bubble {
	if len(c.Headers) > 0 {
		var out []bubble
		for _, id := range c.Headers {
			if b, ok := rows[id]; ok {
				out = append(out, b)
			} else if b, ok := c.Map[id]; ok {
				out = append(out, b)
			}
		}
		return out
	}
	if len(c.Conversation) > 0 {
		return c.Conversation
	}
	out := make([]bubble, 0, len(order))
	for _, id := range order {
		out = append(out, rows[id])
	}
	return out
}

// isNull reports a value that is JSON null.
func isNull(v []byte) bool { return strings.TrimSpace(string(v)) == "null" }

// rawMarker is the marker of a conversation held inline: a hash of its
// bytes.
func rawMarker(raw []byte) string {
	f := fnv.New64a()
	f.Write(raw)
	return fmt.Sprintf("%d.%016x", len(raw), f.Sum64())
}

// globalKeys lists the conversations the global store beside a workspace
// store holds in the 2025 layout (…/User/globalStorage/state.vscdb beside
// …/User/workspaceStorage/<hash>/state.vscdb), reading their keys alone.
// It is empty when path is not a workspace store or the global store
// cannot be read.
func globalKeys(ctx context.Context, path string) map[string]bool {
	ws := filepath.Dir(filepath.Dir(path))
	if filepath.Base(ws) != "workspaceStorage" {
		return nil
	}
	global := filepath.Join(filepath.Dir(ws), "globalStorage", storeName)
	st, done, err := openStore(ctx, global, false)
	if err != nil {
		return nil
	}
	defer done()
	keys, _ := st.composerKeys(ctx)
	return keys
}
