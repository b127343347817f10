package realollama

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/embed"
)

// benchTurns is how many corpus turns one benchmark pass embeds.
const benchTurns = 100

// corpusTexts returns the texts deja embeds for the first n turns of the
// corpus (files in name order), chunked with the default budget.
func corpusTexts(b *testing.B, n int) (turns int, texts []string) {
	b.Helper()
	for _, path := range corpus(b) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, sess := range aider.Parse(data, aider.Options{Path: path}).Sessions {
			for _, t := range chunk.Turns(sess) {
				if turns == n {
					return turns, texts
				}
				texts = append(texts, chunk.Texts(t, chunk.DefaultBudget)...)
				turns++
			}
		}
	}
	return turns, texts
}

// BenchmarkOllamaThroughput embeds benchTurns corpus turns through the
// real Ollama on CPU, per model and batch size (embed.batch), and reports
// turns per second.
func BenchmarkOllamaThroughput(b *testing.B) {
	if ollamaBin == "" {
		b.Skip("DEJA_IT_OLLAMA is not set: run scripts/ollama-it.sh")
	}
	turns, texts := corpusTexts(b, benchTurns)
	for _, model := range []string{model512, model4096} {
		for _, batch := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("model=%s/batch=%d", model, batch), func(b *testing.B) {
				o, err := embed.NewOllama(embed.Options{Model: model, Host: shared.host, Batch: batch, Timeout: 5 * time.Minute})
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				if err := o.Check(ctx); err != nil {
					b.Fatal(err)
				}
				// Load the model and learn its vocabulary outside the timing.
				if _, err := o.Embed(ctx, embed.Document, texts[:1]); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					if _, err := o.Embed(ctx, embed.Document, texts); err != nil {
						b.Fatal(err)
					}
				}
				secs := time.Since(start).Seconds()
				b.ReportMetric(float64(turns*b.N)/secs, "turns/s")
				b.ReportMetric(float64(len(texts)*b.N)/secs, "texts/s")
			})
		}
	}
}
