package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeVocabulary is a WordPiece vocabulary as Ollama stores one: specials
// first, words with the "▁" word-start marker, and single letters as
// continuation pieces so that any lower-case word splits.
func fakeVocabulary() []string {
	v := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
	for _, w := range []string{"search_document", "search_query", ":", "the", "tenant", "filter", "query", "is", "broken", ",", ".", "(", ")", "{", "}", "x"} {
		v = append(v, "▁"+w)
	}
	for c := 'a'; c <= 'z'; c++ {
		v = append(v, "▁"+string(c), string(c))
	}
	return v
}

// TestOllamaCutsTextsToTheModelsContext: against a server that refuses
// any input over its 64-token context (as v0.17.4 does, truncate or not),
// a long text is cut into parts that each fit, prefix included, and gets
// the mean of their vectors; num_ctx asks the runner for that context.
func TestOllamaCutsTextsToTheModelsContext(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 8})
	fake.context, fake.tokens = 64, fakeVocabulary()
	o := newTestOllama(t, fake.URL, Options{})

	long := strings.Repeat("the tenant filter is broken, (x) {query}. ", 40) // about 480 tokens
	odd := strings.Repeat("zzzzqqqq ", 100)                                  // 800 tokens: words split into letters
	vecs, err := o.Embed(context.Background(), Document, []string{"the query", long, odd})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	var parts []string
	for _, r := range fake.embedRequests() {
		if n, _ := r.Options["num_ctx"].(float64); n != 64 {
			t.Errorf("request options %v, want num_ctx 64", r.Options)
		}
		for _, in := range r.Input.([]any) {
			s := in.(string)
			if !strings.HasPrefix(s, "search_document: ") {
				t.Errorf("part %q lacks the document prefix", s)
			}
			if n := fake.countTokens(s); n > 64 {
				t.Errorf("part of %d tokens sent to a 64-token model", n)
			}
			parts = append(parts, s)
		}
	}
	if len(parts) < 1+8+13 {
		t.Fatalf("sent %d parts, want the long texts cut into many", len(parts))
	}
	// The long text's vector is the length-weighted mean of its parts'.
	want := make([]float32, 8)
	for _, p := range parts {
		if !strings.Contains(p, "tenant") {
			continue
		}
		raw := rawVector(p, 8)
		normalize(raw)
		w := float32(utf8.RuneCountInString(p))
		for d := range want {
			want[d] += w * raw[d]
		}
	}
	normalize(want)
	if c := Cosine(vecs[1], want); c < 0.9999 {
		t.Errorf("the long text's vector is not the mean of its parts' (cosine %v)", c)
	}
	// Nothing of the text is lost: its parts hold every word of it.
	var joined strings.Builder
	for _, p := range parts {
		if strings.Contains(p, "tenant") {
			joined.WriteString(strings.TrimPrefix(p, "search_document: ") + " ")
		}
	}
	if got, want := len(strings.Fields(joined.String())), len(strings.Fields(long)); got != want {
		t.Errorf("the parts hold %d words of the text's %d", got, want)
	}
}

// TestOllamaNarrowsARefusedBatchToItsText: one text the model refuses
// however it is cut costs only that text its vector.
func TestOllamaNarrowsARefusedBatchToItsText(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"all-minilm": 16})
	fake.refuse = func(in string) bool { return strings.Contains(in, "日") }
	o := newTestOllama(t, fake.URL, Options{Model: "all-minilm", Batch: 16})
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = fmt.Sprintf("turn %d fixes the tenant filter", i)
	}
	texts[6] = "日本語の説明"
	vecs, err := o.Embed(context.Background(), Document, texts)
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("got %v, want a *RefusedError", err)
	}
	if len(refused.Texts) != 1 || refused.Texts[0].Index != 6 || refused.Texts[0].Reason != "longer than the model's context even when cut" {
		t.Errorf("refused %+v, want text 6, longer than the model's context", refused.Texts)
	}
	for i, v := range vecs {
		if i == 6 {
			if v != nil {
				t.Error("the refused text has a vector")
			}
			continue
		}
		if v == nil || Cosine(v, rawVector(texts[i], 16)) < 0.99999 {
			t.Errorf("text %d lost its vector to the refused one", i)
		}
	}
	// The batch, a probe, the halves down to the text, and the text cut
	// twice: bounded by the batch's depth, not its size.
	if n := fake.count("/api/embed"); n > 12 {
		t.Errorf("sent %d requests to find one refused text among 10", n)
	}
}

// TestOllamaRetriesARefusedTextShorter: a text refused whole but accepted
// cut to half keeps the vector of its first half.
func TestOllamaRetriesARefusedTextShorter(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"all-minilm": 16})
	fake.refuse = func(in string) bool { return len(in) > 100 }
	o := newTestOllama(t, fake.URL, Options{Model: "all-minilm"})
	text := strings.Repeat("abcd ", 30) // 150 bytes
	vecs, err := o.Embed(context.Background(), Document, []string{"short", text})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if Cosine(vecs[1], rawVector(text[:75], 16)) < 0.99999 {
		t.Error("the refused text does not have the vector of its first half")
	}
}

// TestOllamaHalvesABatchThatTimesOut: a server too slow for a batch within
// embed.timeout gets smaller batches, for the rest of the run too, rather
// than failing the run.
func TestOllamaHalvesABatchThatTimesOut(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"all-minilm": 16})
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if r.URL.Path != "/api/embed" {
			return false
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Input []string `json:"input"`
		}
		json.Unmarshal(body, &req)
		if len(req.Input) > 2 { // slow: more than the timeout for 3 texts or more
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return true
		}
		return false
	}
	o := newTestOllama(t, fake.URL, Options{Model: "all-minilm", Batch: 8, Timeout: 200 * time.Millisecond})
	texts := make([]string, 12)
	for i := range texts {
		texts[i] = fmt.Sprintf("turn %d", i)
	}
	vecs, err := o.Embed(context.Background(), Document, texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	for i, v := range vecs {
		if Cosine(v, rawVector(texts[i], 16)) < 0.99999 {
			t.Errorf("text %d has not its vector", i)
		}
	}
	if o.batchSize() != 2 {
		t.Errorf("batch size %d after the timeouts, want 2", o.batchSize())
	}
	// 8 (timeout), 4 (timeout), 2, 2, 4 (timeout), 2, 2, then the last 4
	// texts 2 at a time: the run learnt the size.
	if n := fake.count("/api/embed"); n > 10 {
		t.Errorf("sent %d requests, want the batch halved once and for all", n)
	}
}
