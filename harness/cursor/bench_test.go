package cursor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// benchTranscript is a transcript of n turns shaped like the collected
// ones: a prompt, prose with tool calls, a turn_ended.
func benchTranscript(n int) []byte {
	var b bytes.Buffer
	prose := strings.Repeat("The total uses a floor on cents, so a half cent is dropped; rounding fixes it. ", 6)
	for i := range n {
		fmt.Fprintf(&b, `{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Wednesday, Jun 17, 2026, 8:%02d PM (UTC+8)</timestamp>\n<user_query>\nwhy does checkout %d round down?\n</user_query>"}]}}`+"\n", i%60, i)
		fmt.Fprintf(&b, `{"role":"assistant","message":{"content":[{"type":"text","text":"%s"},{"type":"tool_use","name":"Shell","input":{"command":"grep -rn roundDown src/%d","description":"Find rounding","working_directory":"/Users/me/shop"}},{"type":"tool_use","name":"Read","input":{"limit":"45","path":"/Users/me/shop/src/total%d.ts"}}]}}`+"\n", prose, i, i)
		fmt.Fprintf(&b, `{"role":"assistant","message":{"content":[{"type":"text","text":"%s"},{"type":"tool_use","name":"StrReplace","input":{"path":"/Users/me/shop/src/total%d.ts","old_string":"Math.floor(x)","new_string":"Math.round(x)"}}]}}`+"\n", prose, i)
		b.WriteString(`{"type":"turn_ended","status":"success"}` + "\n")
	}
	return b.Bytes()
}

// BenchmarkParseTranscript measures transcript parse throughput on one
// core: go test -run '^$' -bench ParseTranscript -cpu 1 ./harness/cursor
func BenchmarkParseTranscript(b *testing.B) {
	harnesstest.BenchParseData(b, []string{"transcript"}, [][]byte{benchTranscript(2000)}, func(_ string, data []byte) {
		s, _ := parseTranscript(data, transcriptPrefix+"00000000-0000-4000-8000-000000000000", time.UTC)
		if len(s.Messages) != 6000 {
			b.Fatalf("%d messages", len(s.Messages))
		}
	})
}

// BenchmarkReadStore measures reading a 2025-layout global store whole
// (every conversation changed), in bytes of the store file per second:
// go test -run '^$' -bench ReadStore -cpu 1 ./harness/cursor
func BenchmarkReadStore(b *testing.B) {
	path, size := benchStore(b)
	harnesstest.BenchBytes(b, size, func() {
		h, err := (Reader{}).Read(context.Background(), path, harness.ParseOptions{})
		if err != nil || len(h.Sessions) != benchComposers {
			b.Fatalf("%v, %d sessions", err, len(h.Sessions))
		}
	})
}

// BenchmarkReadStoreUnchanged measures an index of the same store with
// nothing new: every conversation's marker is known, so only the markers
// are read.
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
		if err != nil || len(h.Sessions) != benchComposers || len(h.Sessions[0].Messages) != 0 {
			b.Fatalf("%v, %d sessions", err, len(h.Sessions))
		}
	})
}

// benchComposers is the number of conversations of benchStore.
const benchComposers = 100

// benchStore writes a global store of benchComposers conversations of 60
// messages, half of them tool steps carrying a 4 KB result, and returns
// its path and its size with its WAL.
func benchStore(b *testing.B) (string, int64) {
	path := filepath.Join(b.TempDir(), storeName)
	var sql strings.Builder
	sql.WriteString(`CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
`)
	prose := strings.Repeat("The limiter keeps a bucket per route and refills it every second. ", 8)
	big := strings.Repeat("x", 4000)
	const composers, bubbles = benchComposers, 60
	for c := range composers {
		id := fmt.Sprintf("%08d-1111-4111-8111-111111111111", c)
		var headers []string
		for i := range bubbles {
			headers = append(headers, fmt.Sprintf(`{"bubbleId":"b%d","type":%d}`, i, 1+i%2))
			value := fmt.Sprintf(`{"_v":3,"type":1,"text":"question %d about %s","createdAt":"2025-12-25T19:35:10.000Z"}`, i, id)
			if i%2 == 1 {
				value = fmt.Sprintf(`{"_v":3,"type":2,"text":"%s","createdAt":"2025-12-25T19:35:20.000Z","toolFormerData":{"name":"edit_file_v2","status":"completed","params":"{\"relativeWorkspacePath\":\"/home/u/p/f%d.go\"}","result":"%s"}}`, prose, i, big)
			}
			fmt.Fprintf(&sql, "INSERT INTO cursorDiskKV VALUES ('bubbleId:%s:b%d', '%s');\n", id, i, value)
		}
		fmt.Fprintf(&sql, "INSERT INTO cursorDiskKV VALUES ('composerData:%s', '{\"composerId\":\"%s\",\"createdAt\":1766691308486,\"fullConversationHeadersOnly\":[%s]}');\n", id, id, strings.Join(headers, ","))
	}
	writeStore(b, path, sql.String())
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	wal, _ := os.Stat(path + "-wal")
	size := fi.Size()
	if wal != nil {
		size += wal.Size()
	}
	return path, size
}
