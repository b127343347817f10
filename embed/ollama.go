package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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
	// shown is set once /api/show has told the model's context, fit and
	// revision; vocab once the verbose show has given its vocabulary
	// (asked for only when a text is long enough to need it).
	shown, vocab bool
	fit          fitter
	revision     string
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

// ContextLength returns the most tokens of one text the model sees, as
// /api/show reported it (at most 8192), or 0 until Check or Embed has
// asked. Longer texts are cut into parts that fit.
func (o *Ollama) ContextLength() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.fit.limit
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
	return o.show(ctx, false)
}

// show asks /api/show for the model's embedding length, context length
// and revision, and with verbose for its tokenizer's vocabulary too.
func (o *Ollama) show(ctx context.Context, verbose bool) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	show, err := o.client.Show(ctx, &api.ShowRequest{Model: o.model, Verbose: verbose})
	if err != nil {
		return o.explain(ctx, err)
	}
	o.mu.Lock()
	o.shown = true
	if n := contextLength(show.ModelInfo); n > 0 {
		o.fit.limit = min(n, maxNumCtx)
	}
	if verbose {
		o.vocab = true
		o.fit.count = wordPieceCounter(show.ModelInfo)
	}
	o.revision = fitRevision + " " + dejaVersion() + " " + show.ModifiedAt.UTC().Format(time.RFC3339Nano)
	o.mu.Unlock()
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

// Embed returns one unit vector per text, sending opts.Batch inputs per
// /api/embed request with the model's task prefix for kind. A text longer
// than the model's context is cut into parts that fit, prefix included,
// and gets the mean of their vectors, so every part of it counts. Blank
// texts get a zero vector without a request. Connection resets and 5xx
// answers are retried a bounded number of times; refused connections and
// timeouts are not.
//
// A 4xx for a batch is narrowed down to the texts that cause it: the
// others are embedded, and a refused text is tried again cut shorter. A
// text refused even then has a nil vector, and the error is a
// *RefusedError naming it; any other error means no vectors at all.
func (o *Ollama) Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error) {
	prefix := o.docPrefix
	if kind == Query {
		prefix = o.queryPrefix
	}
	fit, err := o.fitterFor(ctx, prefix, texts)
	if err != nil {
		return nil, err
	}
	var (
		inputs []string
		owner  []int // texts' index of each input
	)
	for i, text := range texts {
		if strings.TrimSpace(text) == "" {
			continue
		}
		for _, p := range fit.pieces(prefix, text) {
			inputs = append(inputs, p)
			owner = append(owner, i)
		}
	}
	vecs := make([][]float32, len(inputs))
	reasons := make([]string, len(inputs))
	for start := 0; start < len(inputs); {
		end := min(start+o.batchSize(), len(inputs))
		if err := o.embedInputs(ctx, prefix, inputs[start:end], vecs[start:end], reasons[start:end]); err != nil {
			return nil, err
		}
		start = end
	}

	// Blank texts get zeros of the model's dimension, known by now unless
	// every text was blank and nothing told us the dimension yet.
	dim := o.Dimension()
	out := make([][]float32, len(texts))
	weight := make([]float64, len(texts))
	refused := map[int]string{}
	for j, v := range vecs {
		i := owner[j]
		if v == nil {
			refused[i] = reasons[j]
			continue
		}
		if out[i] == nil {
			out[i] = make([]float32, dim)
		}
		// Parts weigh by their length, as tokens weigh in mean pooling.
		w := float32(utf8.RuneCountInString(inputs[j]))
		for d := range v {
			out[i][d] += w * v[d]
		}
		weight[i] += float64(w)
	}
	var rerr *RefusedError
	for i := range out {
		switch {
		case out[i] != nil:
			normalize(out[i])
		case refused[i] != "":
			if rerr == nil {
				rerr = &RefusedError{Model: o.model}
			}
			rerr.Texts = append(rerr.Texts, Refusal{Index: i, Reason: refused[i]})
		default:
			out[i] = make([]float32, dim)
		}
	}
	if rerr != nil {
		return out, rerr
	}
	return out, nil
}

// fitterFor returns how to cut texts for the model, asking /api/show once
// for its context and, when some text is long enough to need it, once more
// for its vocabulary.
func (o *Ollama) fitterFor(ctx context.Context, prefix string, texts []string) (fitter, error) {
	o.mu.Lock()
	shown, vocab, fit := o.shown, o.vocab, o.fit
	o.mu.Unlock()
	// A failed show leaves texts as they are: the embed request that
	// follows fails the same way, with its own explanation, or works, and
	// a refused text is then narrowed down as any other.
	if !shown {
		if err := o.show(ctx, false); err != nil && ctx.Err() != nil {
			return fitter{}, ctx.Err()
		}
		o.mu.Lock()
		fit = o.fit
		o.mu.Unlock()
	}
	if vocab || fit.limit == 0 {
		return fit, nil
	}
	for _, t := range texts {
		if !fit.fits(prefix + t) {
			if err := o.show(ctx, true); err != nil && ctx.Err() != nil {
				return fitter{}, ctx.Err()
			}
			o.mu.Lock()
			fit = o.fit
			o.mu.Unlock()
			break
		}
	}
	return fit, nil
}

// batchSize is how many inputs go into one request now.
func (o *Ollama) batchSize() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.batch
}

// shrinkBatch lowers the batch size to n, never below 1.
func (o *Ollama) shrinkBatch(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.batch = max(1, min(o.batch, n))
}

// probeText is what embedInputs sends to tell a refused text from a
// refused request: any embedding model embeds it.
const probeText = "deja"

// embedInputs embeds one batch of inputs into vecs. When Ollama refuses
// the batch with a 4xx (not a 404: the model is missing), a probe tells
// whether it refuses everything (the error is returned) or some input: then
// the batch is split in halves until the refused inputs are alone, and
// each is tried again cut to half, then a quarter; one refused even then
// keeps a nil vector and its reason in reasons.
func (o *Ollama) embedInputs(ctx context.Context, prefix string, inputs []string, vecs [][]float32, reasons []string) error {
	got, err := o.embedBatch(ctx, inputs)
	if err == nil {
		copy(vecs, got)
		return nil
	}
	if len(inputs) > 1 && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		// Too much for one request within embed.timeout (a big model on a
		// busy CPU): halve the batch, for this run's later requests too.
		half := len(inputs) / 2
		o.shrinkBatch(half)
		if err := o.embedInputs(ctx, prefix, inputs[:half], vecs[:half], reasons[:half]); err != nil {
			return err
		}
		return o.embedInputs(ctx, prefix, inputs[half:], vecs[half:], reasons[half:])
	}
	if !refusedInput(err) {
		return err
	}
	if _, perr := o.embedBatch(ctx, []string{prefix + probeText}); perr != nil {
		return err
	}
	return o.narrow(ctx, prefix, inputs, vecs, reasons, err)
}

// narrow finds the inputs of a refused batch that Ollama refuses on their
// own; err is the refusal of the whole batch.
func (o *Ollama) narrow(ctx context.Context, prefix string, inputs []string, vecs [][]float32, reasons []string, err error) error {
	if len(inputs) == 1 {
		text := strings.TrimPrefix(inputs[0], prefix)
		for range 2 {
			text = cut(text, utf8.RuneCountInString(text)/2)
			if strings.TrimSpace(text) == "" {
				break
			}
			got, e := o.embedBatch(ctx, []string{prefix + text})
			if e == nil {
				vecs[0] = got[0]
				return nil
			}
			if !refusedInput(e) {
				return e
			}
		}
		reasons[0] = refusalReason(err)
		return nil
	}
	half := len(inputs) / 2
	for _, part := range [][2]int{{0, half}, {half, len(inputs)}} {
		in := inputs[part[0]:part[1]]
		got, e := o.embedBatch(ctx, in)
		switch {
		case e == nil:
			copy(vecs[part[0]:part[1]], got)
		case refusedInput(e):
			if e := o.narrow(ctx, prefix, in, vecs[part[0]:part[1]], reasons[part[0]:part[1]], e); e != nil {
				return e
			}
		default:
			return e
		}
	}
	return nil
}

// cut returns the first n runes of s.
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// embedBatch sends one request, retrying what may pass on its own.
func (o *Ollama) embedBatch(ctx context.Context, batch []string) ([][]float32, error) {
	truncate := true
	req := &api.EmbedRequest{Model: o.model, Input: batch, Truncate: &truncate}
	o.mu.Lock()
	if o.fit.limit > 0 {
		// Without it the runner's context is Ollama's default (4096),
		// longer than most embedding models see.
		req.Options = map[string]any{"num_ctx": o.fit.limit}
	}
	o.mu.Unlock()
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

// OllamaHostFromEnv is the address Ollama is reached at when ollama.host
// is empty: OLLAMA_HOST read as Ollama reads it, else Ollama's default.
// set says whether OLLAMA_HOST is set.
func OllamaHostFromEnv() (host string, set bool) {
	return envconfig.Host().String(), os.Getenv("OLLAMA_HOST") != ""
}
