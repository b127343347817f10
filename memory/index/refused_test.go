package index

import (
	"context"
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
)

// TestIndexKeepsGoingPastARefusedTurn: a turn the embedder refuses is
// stored, named once, counted as having no vector rather than as lacking
// one, and not sent again until the embedder's revision changes.
func TestIndexKeepsGoingPastARefusedTurn(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	emb.Refuse, emb.Rev = "Docker", "r1"
	rep, err := Index(context.Background(), s, Options{Paths: []string{path}, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NewTurns != 3 || rep.Embedded != 2 || rep.Lacking != 0 {
		t.Fatalf("report %+v, want 3 turns stored, 2 embedded and none lacking", rep)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "1 turn has no vector: aider-") ||
		!strings.Contains(rep.Problems[0], "/0, longer than the model's context even when cut") {
		t.Fatalf("problems %q, want the refused turn named", rep.Problems)
	}
	st, err := digest.Status(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if e := st.Embedders[0]; e.Turns != 2 || e.Lacking != 0 || e.NoVector != 1 {
		t.Errorf("status %+v, want 2 embedded, 0 lacking, 1 without a vector", e)
	}
	if r := mustRecall(t, s, nil, "docker image", recall.Keyword); len(r.Results) == 0 {
		t.Error("keyword recall does not find the refused turn")
	}

	// The next runs leave it alone, with the same revision...
	mustIndex(t, s, emb, path)
	mustIndex(t, s, emb, path)
	if emb.Refused != 1 {
		t.Errorf("the refused turn was sent %d times over three runs, want once", emb.Refused)
	}
	// ...and try it again under a new one (another model, another deja).
	emb.Rev, emb.Refuse = "r2", ""
	rep = mustIndex(t, s, emb, path)
	if rep.Embedded != 1 || rep.Lacking != 0 {
		t.Errorf("report %+v after the revision changed, want the refused turn embedded", rep)
	}
	if st, _ := digest.Status(context.Background(), s); st.Embedders[0].NoVector != 0 || st.Embedders[0].Turns != 3 {
		t.Errorf("status %+v, want all 3 turns embedded", st.Embedders[0])
	}
}
