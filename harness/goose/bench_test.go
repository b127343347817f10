package goose

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// The corpus's one store holds no message rows, so the benchmarks read
// the fixtures scaled up: the figures are of Goose's own forms, filled
// with the fixtures' mix of prompts, answers, tool calls and results.

// BenchmarkReadStore reads a store holding the store fixture's sessions
// copied 200 times under new ids; its MB/s is of the store's file size.
func BenchmarkReadStore(b *testing.B) {
	root := unpack(b, "testdata/store.txtar")
	src := filepath.Join(root, "data", "sessions", StoreName)
	path := filepath.Join(b.TempDir(), StoreName)
	var script strings.Builder
	script.WriteString(`ATTACH DATABASE 'file:` + src + `?mode=ro' AS src;`)
	for i := range 200 {
		k := fmt.Sprintf("'_%03d'", i)
		script.WriteString(`INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at)
			SELECT id||` + k + `, name, session_type, working_dir, created_at, updated_at FROM src.sessions;
			INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json)
			SELECT session_id||` + k + `, role, content_json, created_timestamp, timestamp, metadata_json FROM src.messages ORDER BY id;`)
	}
	harnesstest.SQLiteStore(b, path, string(harnesstest.ReadFixture(b, "schema.sql")), script.String(), `PRAGMA wal_checkpoint(TRUNCATE)`)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	harnesstest.BenchBytes(b, fi.Size(), func() {
		h, err := ReadStore(context.Background(), path, nil)
		if err != nil || len(h.Sessions) != 600 {
			b.Fatalf("%v, %d sessions", err, len(h.Sessions))
		}
	})
}

// BenchmarkParseLegacy parses a legacy file of the legacy fixture's
// messages repeated to about 4 MB.
func BenchmarkParseLegacy(b *testing.B) {
	root := unpack(b, "testdata/legacy.txtar")
	data, err := os.ReadFile(filepath.Join(root, "data", "sessions", "20250310_151010.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	head, body, _ := strings.Cut(string(data), "\n")
	var file strings.Builder
	file.WriteString(head + "\n")
	for file.Len() < 4<<20 {
		file.WriteString(body)
	}
	harnesstest.BenchParseData(b, []string{"legacy"}, [][]byte{[]byte(file.String())}, func(_ string, data []byte) {
		parseLegacy(sessionInfo{ID: "20250310_151010"}, data)
	})
}
