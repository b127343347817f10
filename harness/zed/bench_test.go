package zed

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

// benchThreads is the number of threads of benchStore.
const benchThreads = 100

// BenchmarkReadStore measures reading a store whole (every thread
// changed), in bytes of its documents, decompressed, per second (a
// store's own size says little: zstd keeps these documents in a
// hundredth of it):
// go test -run '^$' -bench ReadStore -cpu 1 ./harness/zed
func BenchmarkReadStore(b *testing.B) {
	path, size := benchStore(b)
	harnesstest.BenchBytes(b, size, func() {
		h, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
		if err != nil || len(h.Sessions) != benchThreads || len(h.Sessions[0].Records) == 0 {
			b.Fatalf("%v, %d sessions", err, len(h.Sessions))
		}
	})
}

// BenchmarkReadStoreUnchanged measures an index of the same store with
// nothing new: every thread's marker is known, so no document is read (its
// MB/s are of the documents not read).
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
		if err != nil || len(h.Sessions) != benchThreads || len(h.Sessions[0].Messages) != 0 {
			b.Fatalf("%v, %d sessions", err, len(h.Sessions))
		}
	})
}

// benchStore writes a store of benchThreads zstd threads shaped like a
// working session: 20 turns each of a prompt, and an answer with a read
// of a 4 KB file, an edit and a terminal run, with their results (an
// edit's carrying the file's old and new text, as Zed's do); it returns
// its path and the size of its documents before they were compressed.
func benchStore(b *testing.B) (string, int64) {
	path := filepath.Join(b.TempDir(), storeName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	prose := strings.Repeat("The limiter keeps a bucket per route and refills it every second. ", 6)
	file := strings.Repeat("func refill(b *bucket) { b.tokens = b.max }\n", 90)
	var sql strings.Builder
	sql.WriteString(schema)
	var size int64
	for s := range benchThreads {
		var msgs []any
		for i := range 20 {
			f := fmt.Sprintf("api/limit%d.go", i)
			use := func(id, name string, input any) any {
				return map[string]any{"ToolUse": map[string]any{"id": id, "name": name, "input": input, "raw_input": "", "is_input_complete": true}}
			}
			result := func(id, name, content string, output any) any {
				return map[string]any{"tool_use_id": id, "tool_name": name, "is_error": false, "content": map[string]any{"Text": content}, "output": output}
			}
			msgs = append(msgs,
				map[string]any{"User": map[string]any{"id": fmt.Sprint(i), "content": []any{map[string]any{"Text": fmt.Sprintf("why does route %d refill late?", i)}}}},
				map[string]any{"Agent": map[string]any{
					"content": []any{map[string]any{"Text": prose},
						use("r", "read_file", map[string]any{"path": f}),
						use("e", "edit_file", map[string]any{"display_description": "cap refill", "path": f, "mode": "edit"}),
						use("t", "terminal", map[string]any{"command": "go test ./...", "cd": "api"})},
					"tool_results": map[string]any{
						"r": result("r", "read_file", file, nil),
						"e": result("e", "edit_file", "Edited "+f, map[string]any{"input_path": f, "old_text": file, "new_text": file + "// capped\n", "diff": "+// capped"}),
						"t": result("t", "terminal", "```\nok  \texample.com/api\t0.2s\n```", nil),
					}}})
		}
		doc, err := json.Marshal(map[string]any{"version": "0.3.0", "title": "t", "updated_at": "2026-03-02T09:00:00+00:00", "messages": msgs})
		if err != nil {
			b.Fatal(err)
		}
		size += int64(len(doc))
		fmt.Fprintf(&sql, "INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, folder_paths_order, created_at) VALUES ('%08d-1111-4111-8111-111111111111', 't', '2026-03-02T09:%02d:00+00:00', 'zstd', '%s', '/home/u/api', '0', '2026-03-02T09:%02d:00+00:00');\n",
			s, s%60, strings.ReplaceAll(string(doc), "'", "''"), s%60)
	}
	harnesstest.SQLiteStore(b, path, sql.String())
	compressRows(b, path)
	return path, size
}
