package embed

import (
	"context"
	"testing"
)

// BenchmarkBuiltinEmbed embeds short sentences like a developer's query,
// one call per batch of 256 like an indexing run; ns/op is per sentence.
func BenchmarkBuiltinEmbed(b *testing.B) {
	e := newBuiltin(b)
	var batch []string
	for len(batch) < 256 {
		for _, tr := range triples {
			batch = append(batch, tr.query, tr.related, tr.unrelated)
		}
	}
	batch = batch[:256]
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += len(batch) {
		n := min(len(batch), b.N-i)
		if _, err := e.Embed(ctx, Document, batch[:n]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkBuiltinLoad opens the compiled-in word table the way the first
// NewBuiltin of a process does.
func BenchmarkBuiltinLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		t, err := openTable(gloveTable)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := t.lookup([]byte("tenant")); !ok {
			b.Fatal("tenant is not in the table")
		}
	}
}
