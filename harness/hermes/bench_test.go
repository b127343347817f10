package hermes

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// benchSessions is the number of sessions of benchStore.
const benchSessions = 100

// benchStore writes a store of benchSessions sessions of 20 turns shaped
// like the corpus's: a prompt, an assistant row with a terminal and a
// patch call, their tool rows (a 4 KB output), an answer. It returns its
// path and its size with its WAL.
func benchStore(b *testing.B) (string, int64) {
	var sql strings.Builder
	prose := strings.Repeat("The total uses a floor on cents, so a half cent is dropped; rounding fixes it. ", 6)
	out := strings.Repeat("x", 4000)
	for s := range benchSessions {
		id := fmt.Sprintf("20260801_0930%02d_%08x", s%60, s)
		fmt.Fprintf(&sql, "INSERT INTO sessions (id, source, started_at, cwd) VALUES ('%s', 'cli', %d, '/home/u/shop');\n", id, 1785576600+s*3600)
		sql.WriteString("INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) VALUES\n")
		for i := range 20 {
			ts := 1785576600 + s*3600 + i*60
			if i > 0 {
				sql.WriteString(",\n")
			}
			fmt.Fprintf(&sql, `('%[1]s', 'user', 'why does checkout %[2]d round down?', NULL, NULL, NULL, %[3]d),
('%[1]s', 'assistant', '', NULL, '[{"id": "a%[2]d", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\":\"grep -rn roundDown src/%[2]d\"}"}}, {"id": "b%[2]d", "type": "function", "function": {"name": "patch", "arguments": "{\"mode\":\"replace\",\"path\":\"src/total%[2]d.ts\",\"old_string\":\"Math.floor(x)\",\"new_string\":\"Math.round(x)\"}"}}]', NULL, %[3]d),
('%[1]s', 'tool', '{"output": "%[4]s", "exit_code": 0, "error": null}', 'a%[2]d', NULL, 'terminal', %[3]d),
('%[1]s', 'tool', '{"success": true}', 'b%[2]d', NULL, 'patch', %[3]d),
('%[1]s', 'assistant', '%[5]s', NULL, NULL, NULL, %[3]d)`, id, i, ts, out, prose)
		}
		sql.WriteString(";\n")
	}
	path := newStore(b, sql.String())
	size := int64(0)
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			size += fi.Size()
		}
	}
	return path, size
}

// BenchmarkReadStore measures reading a store whole (every session
// changed), in bytes of the store and its WAL per second:
// go test -run '^$' -bench ReadStore -cpu 1 ./harness/hermes
func BenchmarkReadStore(b *testing.B) {
	path, size := benchStore(b)
	harnesstest.BenchBytes(b, size, func() {
		h, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
		if err != nil || len(h.Sessions) != benchSessions || len(h.Sessions[0].Messages) != 40 {
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
	known := map[string]string{}
	for _, s := range h.Sessions {
		known[s.ID] = s.Marker
	}
	opts := harness.ParseOptions{Unchanged: func(id, m string) bool { return known[id] == m }}
	harnesstest.BenchBytes(b, size, func() {
		h, err := (Reader{}).Read(context.Background(), path, opts)
		if err != nil || len(h.Sessions) != benchSessions || len(h.Sessions[0].Messages) != 0 {
			b.Fatalf("%v, %d sessions", err, len(h.Sessions))
		}
	})
}
