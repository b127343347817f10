package recall

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/codex"
	indexing "github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
)

// TestRecallPromptWithoutProject: a prompt of Codex's history.jsonl names
// no project and is stored with none; a semantic or hybrid recall, of a
// loaded store or a one-shot one, finds it instead of failing on the
// nameless vector collection it makes ("collection name is empty").
func TestRecallPromptWithoutProject(t *testing.T) {
	s, fixture := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	dir := filepath.Join(t.TempDir(), ".codex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	hist := filepath.Join(dir, "history.jsonl")
	line := `{"session_id":"019b0000-d022-7061-bbb9-b0c90708472c","ts":1766000000,"text":"why is the grpc stream closing after thirty seconds"}` + "\n"
	if err := os.WriteFile(hist, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := indexing.Index(context.Background(), s, indexing.Options{
		Paths: []string{fixture, hist}, Embedder: emb,
		Harnesses: harness.Registry{codex.Reader{}, aider.Reader{}},
	})
	if err != nil || len(rep.Problems) > 0 || rep.NewTurns == 0 {
		t.Fatalf("index: %+v, %v", rep, err)
	}
	once, err := store.Open(context.Background(), s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer once.Close()
	for name, st := range map[string]*store.Store{"loaded": s, "one-shot": once} {
		for _, mode := range []Mode{Semantic, Hybrid} {
			r := mustRecall(t, st, emb, "grpc stream closing", mode)
			found := false
			for _, res := range r.Results {
				found = found || res.Project == "" && res.User == "why is the grpc stream closing after thirty seconds"
			}
			if !found {
				t.Errorf("%s %s: the prompt without a project is not among %+v", name, mode, r.Results)
			}
		}
	}
}
