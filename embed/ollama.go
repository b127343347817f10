package embed

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
)

// Ollama embeds text with a model served by a local Ollama, through
// Ollama's official Go client.
type Ollama struct {
	client  *api.Client
	host    string
	model   string
	batch   int
	timeout time.Duration
	// docPrefix and queryPrefix are the model's task markers.
	docPrefix, queryPrefix string
	// attempts and backoff bound the retries of one batch; tests shorten
	// the backoff.
	attempts int
	backoff  time.Duration

	mu  sync.Mutex
	dim int // 0 until the model's dimension is known
}

// NewOllama returns an embedder for opts.Model on the Ollama at opts.Host,
// or at OLLAMA_HOST (default http://127.0.0.1:11434) when Host is empty. It
// does not contact Ollama; Check does.
func NewOllama(opts Options) (*Ollama, error) {
	opts = opts.withDefaults()
	var (
		client *api.Client
		host   *url.URL
	)
	if opts.Host != "" {
		u, err := parseHost(opts.Host)
		if err != nil {
			return nil, err
		}
		// Ollama's client has no timeout of its own: every call below
		// carries a context deadline instead.
		client, host = api.NewClient(u, &http.Client{}), u
	} else {
		c, err := api.ClientFromEnvironment()
		if err != nil {
			return nil, fmt.Errorf("ollama: reading OLLAMA_HOST: %w", err)
		}
		client, host = c, envconfig.Host()
	}
	doc, query := taskPrefixes(opts.Model)
	return &Ollama{
		client:      client,
		host:        host.String(),
		model:       opts.Model,
		batch:       opts.Batch,
		timeout:     opts.Timeout,
		docPrefix:   doc,
		queryPrefix: query,
		attempts:    3,
		backoff:     250 * time.Millisecond,
	}, nil
}

// parseHost reads an ollama.host value the way Ollama reads OLLAMA_HOST: a
// bare host[:port] means http on port 11434.
func parseHost(s string) (*url.URL, error) {
	raw := strings.TrimSpace(s)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("ollama: host %q is not an address like http://127.0.0.1:11434: fix ollama.host", s)
	}
	if u.Port() == "" && !strings.Contains(s, "://") {
		u.Host += ":11434"
	}
	return u, nil
}

// Identity returns "ollama:" and the model name, without a ":latest" tag
// so that both spellings of one model share their vectors.
func (o *Ollama) Identity() string {
	return "ollama:" + strings.TrimSuffix(o.model, ":latest")
}

// Dimension returns the model's vector length, or 0 until Check or Embed
// has learnt it from Ollama.
func (o *Ollama) Dimension() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dim
}

// Host returns the Ollama address this embedder talks to.
func (o *Ollama) Host() string { return o.host }

// Check reports whether Ollama answers and has the model, and learns the
// model's dimension. Its errors say what to do: start Ollama, or pull the
// model.
func (o *Ollama) Check(ctx context.Context) error {
	if _, err := o.client.Version(ctx); err != nil {
		return o.explain(ctx, err)
	}
	show, err := o.client.Show(ctx, &api.ShowRequest{Model: o.model})
	if err != nil {
		return o.explain(ctx, err)
	}
	if n := embeddingLength(show.ModelInfo); n > 0 {
		return o.learnDimension(n)
	}
	return nil
}

// embeddingLength reads "<architecture>.embedding_length" from /api/show's
// model_info, 0 when it is absent.
func embeddingLength(info map[string]any) int {
	arch, _ := info["general.architecture"].(string)
	n, _ := info[arch+".embedding_length"].(float64)
	return int(n)
}

// learnDimension records the model's dimension the first time and refuses
// any other afterwards: vectors of two sizes must never be mixed.
func (o *Ollama) learnDimension(n int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch o.dim {
	case 0:
		o.dim = n
		return nil
	case n:
		return nil
	}
	return fmt.Errorf("ollama: model %q returned %d-dimensional vectors after %d-dimensional ones: "+
		"the model changed while deja ran, and vectors of two sizes are never mixed; run the command again", o.model, n, o.dim)
}

// Embed returns one unit vector per text, sending opts.Batch texts per
// /api/embed request with the model's task prefix for kind. Blank texts get
// a zero vector without a request. Connection resets and 5xx answers are
// retried a bounded number of times; 4xx answers, refused connections and
// timeouts are not.
func (o *Ollama) Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	prefix := o.docPrefix
	if kind == Query {
		prefix = o.queryPrefix
	}
	out := make([][]float32, len(texts))
	var (
		batch []string
		slots []int // out's index of each text in batch
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		vecs, err := o.embedBatch(ctx, batch)
		if err != nil {
			return err
		}
		for j, v := range vecs {
			out[slots[j]] = v
		}
		batch, slots = batch[:0], slots[:0]
		return nil
	}
	for i, text := range texts {
		if strings.TrimSpace(text) == "" {
			continue
		}
		batch = append(batch, prefix+text)
		slots = append(slots, i)
		if len(batch) == o.batch {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	// Blank texts get zeros of the model's dimension, known by now unless
	// every text was blank and nothing told us the dimension yet.
	dim := o.Dimension()
	for i := range out {
		if out[i] == nil {
			out[i] = make([]float32, dim)
		}
	}
	return out, nil
}

// embedBatch sends one request, retrying what may pass on its own.
func (o *Ollama) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	truncate := true
	req := &api.EmbedRequest{Model: o.model, Input: batch, Truncate: &truncate}
	var err error
	for attempt := range o.attempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(o.backoff << (attempt - 1)):
			}
		}
		var resp *api.EmbedResponse
		resp, err = o.call(ctx, req)
		if err == nil {
			return o.accept(resp, len(batch))
		}
		if !retryable(ctx, err) {
			break
		}
	}
	return nil, o.explain(ctx, err)
}

func (o *Ollama) call(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	return o.client.Embed(ctx, req)
}

// accept checks an answer's shape and normalises its vectors.
func (o *Ollama) accept(resp *api.EmbedResponse, want int) ([][]float32, error) {
	if len(resp.Embeddings) != want {
		return nil, fmt.Errorf("ollama: asked %s for %d embeddings and got %d: check that %q is an embedding model",
			o.host, want, len(resp.Embeddings), o.model)
	}
	for _, v := range resp.Embeddings {
		if len(v) == 0 {
			return nil, fmt.Errorf("ollama: %s returned an empty embedding: check that %q is an embedding model", o.host, o.model)
		}
		if err := o.learnDimension(len(v)); err != nil {
			return nil, err
		}
		normalize(v)
	}
	return resp.Embeddings, nil
}
