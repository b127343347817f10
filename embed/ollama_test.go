package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

func newTestOllama(t testing.TB, host string, opts Options) *Ollama {
	t.Helper()
	opts.Host = host
	o, err := NewOllama(opts)
	if err != nil {
		t.Fatal(err)
	}
	o.backoff = time.Millisecond
	return o
}

func TestOllamaBatchesPrefixesAndNormalises(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	o := newTestOllama(t, fake.URL, Options{Batch: 32})

	texts := make([]string, 70)
	for i := range texts {
		texts[i] = fmt.Sprintf("turn %d: fix the tenant filter", i)
	}
	texts[40] = "   " // blank: no semantic signal, not sent
	vecs, err := o.Embed(context.Background(), Document, texts)
	if err != nil {
		t.Fatal(err)
	}

	reqs := fake.embedRequests()
	var sizes []int
	for _, r := range reqs {
		in := r.Input.([]any)
		sizes = append(sizes, len(in))
		if r.Model != "nomic-embed-text" {
			t.Errorf("request names model %q", r.Model)
		}
		if r.Truncate == nil || !*r.Truncate {
			t.Error("request does not ask Ollama to truncate long inputs")
		}
		for _, s := range in {
			if !strings.HasPrefix(s.(string), "search_document: turn ") {
				t.Errorf("document sent as %q, want the search_document: prefix", s)
			}
		}
	}
	if fmt.Sprint(sizes) != "[32 32 5]" {
		t.Errorf("sent batches of %v, want [32 32 5] (69 non-blank texts, batch 32)", sizes)
	}

	if len(vecs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if i == 40 {
			if len(v) != 768 || norm(v) != 0 {
				t.Errorf("blank text: got %d dims of length %v, want the 768-d zero vector", len(v), norm(v))
			}
			continue
		}
		if math.Abs(norm(v)-1) > 1e-5 {
			t.Errorf("vector %d has length %v, want 1", i, norm(v))
		}
		want := rawVector("search_document: "+texts[i], 768)
		if c := Cosine(v, want); c < 0.99999 {
			t.Errorf("vector %d is not the one Ollama returned for text %d (cosine %v): order lost", i, i, c)
		}
	}
	if o.Dimension() != 768 {
		t.Errorf("Dimension is %d after embedding, want 768", o.Dimension())
	}

	if _, err := o.Embed(context.Background(), Query, []string{"where is the tenant filter"}); err != nil {
		t.Fatal(err)
	}
	reqs = fake.embedRequests()
	if got := reqs[len(reqs)-1].Input.([]any)[0]; got != "search_query: where is the tenant filter" {
		t.Errorf("query sent as %q, want the search_query: prefix", got)
	}
}

func TestOllamaSendsNoPrefixForUnknownModels(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"all-minilm": 384})
	o := newTestOllama(t, fake.URL, Options{Model: "all-minilm"})
	if _, err := o.Embed(context.Background(), Query, []string{"tenant filter"}); err != nil {
		t.Fatal(err)
	}
	if got := fake.embedRequests()[0].Input.([]any)[0]; got != "tenant filter" {
		t.Errorf("sent %q, want the text unchanged", got)
	}
	if o.Identity() != "ollama:all-minilm" {
		t.Errorf("Identity is %q", o.Identity())
	}
}

func TestTaskPrefixes(t *testing.T) {
	const instr = "Represent this sentence for searching relevant passages: "
	for _, tc := range []struct{ model, doc, query string }{
		{"nomic-embed-text", "search_document: ", "search_query: "},
		{"nomic-embed-text:latest", "search_document: ", "search_query: "},
		{"hf.co/nomic-ai/nomic-embed-text-v1.5-GGUF:Q8_0", "search_document: ", "search_query: "},
		{"mxbai-embed-large", "", instr},
		{"bge-large:335m", "", instr},
		{"bge-m3", "", ""},
		{"jeffh/intfloat-multilingual-e5-large:f16", "", ""},
		{"multilingual-e5-large", "passage: ", "query: "},
		{"e5-small-v2", "passage: ", "query: "},
		{"all-minilm", "", ""},
		{"snowflake-arctic-embed", "", ""},
	} {
		doc, query := taskPrefixes(tc.model)
		if doc != tc.doc || query != tc.query {
			t.Errorf("%s: got (%q, %q), want (%q, %q)", tc.model, doc, query, tc.doc, tc.query)
		}
	}
}

func TestOllamaModelNotPulled(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{})
	o := newTestOllama(t, fake.URL, Options{})
	_, err := o.Embed(context.Background(), Document, []string{"anything"})
	if err == nil || !strings.Contains(err.Error(), "run 'ollama pull nomic-embed-text'") {
		t.Fatalf("got %v, want advice to run 'ollama pull nomic-embed-text'", err)
	}
	if n := fake.count("/api/embed"); n != 1 {
		t.Errorf("sent %d requests, want 1: a 404 must not be retried", n)
	}
	if err := o.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "ollama pull nomic-embed-text") {
		t.Errorf("Check: got %v, want advice to pull the model", err)
	}
}

func TestOllamaRefusingEverythingFailsTheCall(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid input type"})
		return true
	}
	o := newTestOllama(t, fake.URL, Options{})
	vecs, err := o.Embed(context.Background(), Document, []string{"anything", "else", "at all"})
	if err == nil || !strings.Contains(err.Error(), "status 400") {
		t.Fatalf("got %v, want the 400 reported", err)
	}
	var refused *RefusedError
	if errors.As(err, &refused) || vecs != nil {
		t.Errorf("got %d vectors and %v: a server that refuses even the probe must fail the call, not refuse each text", len(vecs), err)
	}
	if n := fake.count("/api/embed"); n != 2 {
		t.Errorf("sent %d requests, want 2: the batch, then one probe that is refused too", n)
	}
}

func TestOllamaNotRunning(t *testing.T) {
	fake := newFakeOllama(t, nil)
	host := fake.URL
	fake.Close() // nothing listens there now
	o := newTestOllama(t, host, Options{})

	want := "Ollama is not reachable at " + host + ": start it with 'ollama serve'"
	_, err := o.Embed(context.Background(), Document, []string{"anything"})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Embed: got %v, want %q", err, want)
	}
	if err := o.Check(context.Background()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Check: got %v, want %q", err, want)
	}
}

func TestOllamaRetriesDroppedConnectionsAndServerErrors(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		switch {
		case r.URL.Path != "/api/embed":
			return false
		case n == 2: // second batch: the server crashes mid-request
			dropConnection(t, w)
			return true
		case n == 3: // and answers 503 while it restarts
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "server busy"})
			return true
		}
		return false
	}
	o := newTestOllama(t, fake.URL, Options{Batch: 2})
	vecs, err := o.Embed(context.Background(), Document, []string{"a b", "c d", "e f", "g h"})
	if err != nil {
		t.Fatalf("a dropped connection and a 503 within the retry budget failed the batch: %v", err)
	}
	if len(vecs) != 4 || Cosine(vecs[3], rawVector("search_document: g h", 768)) < 0.99999 {
		t.Error("vectors after the retries do not match their texts")
	}
	if n := fake.count("/api/embed"); n != 4 {
		t.Errorf("sent %d requests, want 4 (batch 1, batch 2 three times)", n)
	}
}

func TestOllamaGivesUpOnAPersistentServerError(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "llama runner process has terminated"})
		return true
	}
	o := newTestOllama(t, fake.URL, Options{})
	_, err := o.Embed(context.Background(), Document, []string{"anything"})
	if err == nil || !strings.Contains(err.Error(), "status 500") || !strings.Contains(err.Error(), "server log") {
		t.Errorf("got %v, want the 500 and a pointer to the server log", err)
	}
	if n := fake.count("/api/embed"); n != 3 {
		t.Errorf("sent %d requests, want 3 attempts", n)
	}
}

func TestOllamaServerDiesMidRun(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n < 2 {
			return false
		}
		// The second batch finds Ollama gone for good: the connection
		// drops and nothing listens any more.
		fake.Listener.Close()
		dropConnection(t, w)
		return true
	}
	o := newTestOllama(t, fake.URL, Options{Batch: 1})
	vecs, err := o.Embed(context.Background(), Document, []string{"first", "second", "third"})
	if err == nil {
		t.Fatal("Embed succeeded although the server died")
	}
	if vecs != nil {
		t.Errorf("got %d vectors with the error; a failed run must return none", len(vecs))
	}
	if !strings.Contains(err.Error(), "ollama serve") {
		t.Errorf("got %v, want advice to start Ollama", err)
	}
}

func TestOllamaTimeout(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		select { // a model that takes far longer than the timeout
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return true
	}
	o := newTestOllama(t, fake.URL, Options{Timeout: 50 * time.Millisecond})
	_, err := o.Embed(context.Background(), Document, []string{"anything"})
	if err == nil || !strings.Contains(err.Error(), "within 50ms") || !strings.Contains(err.Error(), "embed.timeout") {
		t.Fatalf("got %v, want a timeout that names embed.timeout", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
	}
	if n := fake.count("/api/embed"); n != 1 {
		t.Errorf("sent %d requests, want 1: a timeout must not be retried", n)
	}
}

func TestOllamaHonoursCancellation(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	ctx, cancel := context.WithCancel(context.Background())
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		cancel()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return true
	}
	o := newTestOllama(t, fake.URL, Options{})
	_, err := o.Embed(ctx, Document, []string{"anything"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestOllamaRefusesAChangedDimension(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	o := newTestOllama(t, fake.URL, Options{Batch: 1})
	fake.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if r.URL.Path == "/api/embed" && n == 2 {
			// The model is replaced between two batches of one run.
			fake.setDimension("nomic-embed-text", 384)
		}
		return false
	}
	_, err := o.Embed(context.Background(), Document, []string{"first", "second"})
	if err == nil || !strings.Contains(err.Error(), "384-dimensional vectors after 768-dimensional") {
		t.Fatalf("got %v, want a refusal to mix 384- and 768-d vectors", err)
	}
	if _, err := o.Embed(context.Background(), Document, []string{"later"}); err == nil {
		t.Error("a later call accepted 384-d vectors after 768-d ones")
	}
	if o.Dimension() != 768 {
		t.Errorf("Dimension changed to %d", o.Dimension())
	}
}

func TestOllamaCheckLearnsTheDimension(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	o := newTestOllama(t, fake.URL, Options{})
	if err := o.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o.Dimension() != 768 {
		t.Errorf("Dimension is %d after Check, want 768 from /api/show", o.Dimension())
	}
	fake.setDimension("nomic-embed-text", 1024)
	if _, err := o.Embed(context.Background(), Document, []string{"x"}); err == nil {
		t.Error("Embed accepted 1024-d vectors although /api/show said 768")
	}
}

func TestOllamaHostComesFromTheEnvironmentUnlessOverridden(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	t.Setenv("OLLAMA_HOST", fake.URL)
	o, err := NewOllama(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Check(context.Background()); err != nil {
		t.Fatalf("OLLAMA_HOST=%s: %v", fake.URL, err)
	}

	t.Setenv("OLLAMA_HOST", "http://127.0.0.1:1") // nothing there
	o, err = NewOllama(Options{Host: strings.TrimPrefix(fake.URL, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Check(context.Background()); err != nil {
		t.Errorf("ollama.host %s did not override OLLAMA_HOST: %v", fake.URL, err)
	}
}

func TestParseHost(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1":                "http://127.0.0.1:11434",
		"localhost:8080":           "http://localhost:8080",
		"http://10.0.0.5:11434":    "http://10.0.0.5:11434",
		"https://ollama.example":   "https://ollama.example",
		" http://127.0.0.1:11434 ": "http://127.0.0.1:11434",
	} {
		u, err := parseHost(in)
		if err != nil || u.String() != want {
			t.Errorf("parseHost(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	if _, err := parseHost("http://"); err == nil {
		t.Error("parseHost accepted an address with no host")
	}
}
