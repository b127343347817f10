package antigravity

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkRead reads a conversation of 2000 transcript steps (the
// transcript fixture's mix, repeated) and 200 notices; its MB/s is of
// the files' bytes.
func BenchmarkRead(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "3f2504e0-4f89-41d3-9a0c-0305e82c3301")
	var tr strings.Builder
	for i := range 500 {
		fmt.Fprintf(&tr, `{"source":"USER_EXPLICIT","created_at":"2026-07-17T09:%02d:00Z","content":"<USER_REQUEST>Check the build, step %d.<ADDITIONAL_METADATA>{\"cwd\":\"/work/api\"}</ADDITIONAL_METADATA></USER_REQUEST>"}`+"\n", i%60, i)
		fmt.Fprintf(&tr, `{"source":"MODEL","type":"PLANNER_RESPONSE","created_at":"2026-07-17T09:%02d:05Z","content":"%s"}`+"\n", i%60, strings.Repeat("I will run the build and read its errors. ", 20))
		fmt.Fprintf(&tr, `{"source":"MODEL","type":"RUN_COMMAND","created_at":"2026-07-17T09:%02d:09Z","content":"Task Description: go build ./...\nThe command exited with code 1."}`+"\n", i%60)
		fmt.Fprintf(&tr, `{"source":"MODEL","created_at":"2026-07-17T09:%02d:30Z","content":"%s"}`+"\n", i%60, strings.Repeat("The cycle is broken. ", 30))
	}
	size := int64(tr.Len())
	harnesstest.WriteFile(b, filepath.Join(dir, generated, filepath.FromSlash(transcript)), tr.String())
	for i := range 200 {
		n := fmt.Sprintf(`{"id":"%d","sender":"system","timestamp":"2026-07-17T09:%02d:01Z","content":"[Notice] The terminal was restarted."}`, i, i%60)
		harnesstest.WriteFile(b, filepath.Join(dir, generated, messageDir, fmt.Sprintf("%04d.json", i)), n)
		size += int64(len(n))
	}
	harnesstest.BenchBytes(b, size, func() {
		h, err := ReadConversation(context.Background(), dir, harness.ParseOptions{})
		if err != nil || len(h.Sessions[0].Messages) != 1700 {
			b.Fatalf("%v, %d messages", err, len(h.Sessions[0].Messages))
		}
	})
}
