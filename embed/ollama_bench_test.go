package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/ollama/ollama/api"
)

// BenchmarkOllamaBatch measures what deja's client adds per /api/embed
// batch of 32 turns (768-d, as nomic-embed-text): encoding the request,
// the loopback round trip, decoding and normalising the answer. The fake
// server replies with pre-encoded bytes, so the model's own time, which a
// real Ollama adds on top, is left out.
func BenchmarkOllamaBatch(b *testing.B) {
	const batch, dim = 32, 768
	texts := make([]string, batch)
	resp := api.EmbedResponse{Model: "nomic-embed-text", Embeddings: make([][]float32, batch)}
	for i := range texts {
		texts[i] = fmt.Sprintf("turn %d: the SQL select is missing the WHERE tenant_id predicate in user_repo.go", i)
		resp.Embeddings[i] = rawVector(texts[i], dim)
	}
	body, err := json.Marshal(resp)
	if err != nil {
		b.Fatal(err)
	}
	fake := newFakeOllama(b, map[string]int{"nomic-embed-text": dim})
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(body)
		return true
	}
	o := newTestOllama(b, fake.URL, Options{Batch: batch})
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := o.Embed(ctx, Document, texts); err != nil {
			b.Fatal(err)
		}
	}
}
