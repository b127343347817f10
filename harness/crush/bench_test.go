package crush

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// benchSessions is the number of sessions of benchStore.
const benchSessions = 100

// BenchmarkReadStore measures reading a store whole (every session
// changed), in bytes of the store and its WAL per second:
// go test -run '^$' -bench ReadStore -cpu 1 ./harness/crush
func BenchmarkReadStore(b *testing.B) {
	path, size := benchStore(b)
	harnesstest.BenchBytes(b, size, func() {
		h, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
		if err != nil || len(h.Sessions) != benchSessions || len(h.Sessions[0].Records) == 0 {
			b.Fatalf("%v, %d sessions", err, len(h.Sessions))
		}
	})
}

// BenchmarkReadStoreUnchanged measures an index of the same store with
// nothing new: every session's marker is known, so only the markers are
// read.
func BenchmarkReadStoreUnchanged(b *testing.B) {
	path, size := benchStore(b)
	h, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	markers := map[string]string{}
	for _, s := range h.Sessions {
		markers[s.ID] = s.Marker
	}
	opts := harness.ParseOptions{Unchanged: func(id, m string) bool { return markers[id] == m }}
	harnesstest.BenchBytes(b, size, func() {
		h, err := (Reader{}).Read(context.Background(), path, opts)
		if err != nil || len(h.Sessions) != benchSessions || len(h.Sessions[0].Messages) != 0 {
			b.Fatalf("%v, %d sessions", err, len(h.Sessions))
		}
	})
}

// benchStore writes a store of benchSessions sessions shaped like the
// collected one: 20 turns each of a prompt, an answer with a view, an
// edit and a bash call, and their results, a view's carrying a 4 KB
// file; it returns its path and its size with its WAL.
func benchStore(b *testing.B) (string, int64) {
	path := filepath.Join(b.TempDir(), ".crush", storeName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	var sql strings.Builder
	sql.WriteString(schema)
	part := func(typ string, data any) map[string]any { return map[string]any{"type": typ, "data": data} }
	input := func(v any) string { s, _ := json.Marshal(v); return string(s) }
	row := func(id, session, role string, t int, parts ...map[string]any) {
		p, _ := json.Marshal(parts)
		fmt.Fprintf(&sql, "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('%s', '%s', '%s', '%s', %d, %d);\n",
			id, session, role, strings.ReplaceAll(string(p), "'", "''"), t, t)
	}
	prose := strings.Repeat("The limiter keeps a bucket per route and refills it every second. ", 6)
	file := strings.Repeat("     1|func refill(b *bucket) { b.tokens = b.max }\n", 90)
	for s := range benchSessions {
		sid := fmt.Sprintf("%08d-1111-4111-8111-111111111111", s)
		t := 1766656800 + s*1000
		fmt.Fprintf(&sql, "INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('%s', 't', %d, %d);\n", sid, t, t)
		for i := range 20 {
			f := fmt.Sprintf("/home/u/api/limit%d.go", i)
			id := func(n int) string { return fmt.Sprintf("%08d-%04d-4000-8000-%012d", s, i, n) }
			row(id(1), sid, "user", t+i*10, part("text", map[string]any{"text": fmt.Sprintf("why does route %d refill late?", i)}))
			row(id(2), sid, "assistant", t+i*10+1, part("text", map[string]any{"text": prose}),
				part("tool_call", map[string]any{"id": "v" + id(2), "name": "view", "input": input(map[string]any{"file_path": f})}),
				part("tool_call", map[string]any{"id": "e" + id(2), "name": "edit", "input": input(map[string]any{"file_path": f, "old_string": "b.tokens = b.max", "new_string": "b.tokens = min(b.max, b.tokens+b.rate)"})}),
				part("tool_call", map[string]any{"id": "b" + id(2), "name": "bash", "input": input(map[string]any{"command": "go test ./..."})}),
				part("finish", map[string]any{"reason": "tool_use", "time": t + i*10 + 2}))
			row(id(3), sid, "tool", t+i*10+3,
				part("tool_result", map[string]any{"tool_call_id": "v" + id(2), "content": "<file>\n" + file + "</file>"}),
				part("tool_result", map[string]any{"tool_call_id": "e" + id(2), "content": "<result>\nContent replaced\n</result>", "metadata": input(map[string]any{"additions": 1, "removals": 1})}),
				part("tool_result", map[string]any{"tool_call_id": "b" + id(2), "content": "ok  \texample.com/api\t0.2s\n\n<cwd>/home/u/api</cwd>", "metadata": input(map[string]any{"start_time": 1, "end_time": 2})}))
		}
	}
	harnesstest.SQLiteStore(b, path, sql.String())
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	size := fi.Size()
	if wal, err := os.Stat(path + "-wal"); err == nil {
		size += wal.Size()
	}
	return path, size
}
