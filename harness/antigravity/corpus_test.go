package antigravity

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestCorpus lays each real notice of the shared corpus where Antigravity
// writes it (its MANIFEST path, brain/<conversation>/.system_generated/
// messages/<id>.json) and reads the conversation: one session named by
// the conversation, each notice an assistant-side message with its time.
func TestCorpus(t *testing.T) {
	files := harnesstest.CorpusFiles(t, filepath.Join(harnesstest.SharedCorpus, "antigravity"), "*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := strings.Cut(filepath.Base(file), "_brain_")
		if !ok {
			continue
		}
		conv, name, _ := strings.Cut(rest, "_.system_generated_messages_")
		dir := filepath.Join(t.TempDir(), conv)
		harnesstest.WriteFile(t, filepath.Join(dir, generated, messageDir, name), string(data))
		h, err := ReadConversation(context.Background(), dir, harness.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		harnesstest.CheckInvariants(t, h, 0, 0)
		harnesstest.CheckValidIDs(t, h, Reader{}.ValidID)
		s := h.Sessions[0]
		if len(h.Warnings) > 0 || s.ID != IDPrefix+conv || len(s.Messages) != 1 || s.Messages[0].Time.IsZero() || !s.HasStart() {
			t.Errorf("%s: warnings %q, session %+v", file, h.Warnings, s)
		}
	}
}
