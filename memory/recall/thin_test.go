package recall

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
)

// TestThinTurnsNeedAWordInCommon: "how are you?" is near any question made
// of the same function words; it counts by meaning only when it shares a
// content word with the query.
func TestThinTurnsNeedAWordInCommon(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, aider.HistoryFileName)
	history := "\n# aider chat started at 2026-03-02 10:00:00\n\n#### how are you?  \n\n#### thanks!  \n\n#### how are the retries of the payment webhook configured  \n\nThree attempts with exponential backoff.\n"
	if err := os.WriteFile(path, []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(context.Background(), filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	users := func(q string, thin int) map[string]bool {
		tune := DefaultTuning(emb.Identity())
		tune.Floor, tune.ThinChars = 0.01, thin
		r, err := Recall(context.Background(), s, Options{Query: q, Mode: Semantic, Embedder: emb, Tuning: &tune})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, res := range r.Results {
			out[res.User] = true
		}
		return out
	}
	if got := users("how are the deploys going", 0); !got["how are you?"] {
		t.Fatalf("without the test the thin turn is not even a candidate: %v", got)
	}
	if got := users("how are the deploys going", thinChars); got["how are you?"] {
		t.Errorf("the thin turn matched a query it shares no content word with: %v", got)
	}
	if got := users("thanks for the quick fix", thinChars); !got["thanks!"] {
		t.Errorf("a thin turn lost a query it shares a content word with: %v", got)
	}
}
