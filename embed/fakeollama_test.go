package embed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/tokenizer"
)

// fakeOllama is an httptest server that answers /api/version, /api/show
// and /api/embed with the JSON a real Ollama sends (checked against
// server/routes.go of ollama v0.17.4), so tests drive the real api.Client.
type fakeOllama struct {
	*httptest.Server

	mu     sync.Mutex
	models map[string]int // model name → dimension
	embeds []api.EmbedRequest
	calls  map[string]int // path → requests received
	// intercept, when set, may answer a request itself (fail, hang,
	// drop the connection); n counts requests to that path from 1.
	intercept func(w http.ResponseWriter, r *http.Request, n int) bool
	// context, when set, is the models' context length, reported by show;
	// tokens is the WordPiece vocabulary a verbose show returns. An input
	// of more tokens than context is refused as the v0.17.4 runner does,
	// truncate or not.
	context int
	tokens  []string
	// refuse, when set, refuses the inputs it returns true for.
	refuse func(input string) bool
}

func newFakeOllama(t testing.TB, models map[string]int) *fakeOllama {
	f := &fakeOllama{models: models, calls: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOllama) serve(w http.ResponseWriter, r *http.Request) {
	// Reading the whole body first lets the server notice a client that
	// hangs up, which cancels r.Context() for handlers that wait on it.
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	f.mu.Lock()
	f.calls[r.URL.Path]++
	n := f.calls[r.URL.Path]
	intercept := f.intercept
	f.mu.Unlock()
	if intercept != nil && intercept(w, r, n) {
		return
	}
	switch r.URL.Path {
	case "/api/version":
		writeJSON(w, http.StatusOK, map[string]string{"version": "0.17.4"})
	case "/api/show":
		var req api.ShowRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		dim, ok := f.dimension(req.Model)
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
			return
		}
		info := map[string]any{
			"general.architecture":        "nomic-bert",
			"nomic-bert.embedding_length": dim,
		}
		if f.context > 0 {
			info["nomic-bert.context_length"] = f.context
			info["tokenizer.ggml.model"] = "bert"
			info["tokenizer.ggml.cls_token_id"] = 2
			info["tokenizer.ggml.seperator_token_id"] = 3
			// Without verbose, Ollama empties arrays of more than 5 values.
			info["tokenizer.ggml.tokens"] = []string{}
			if req.Verbose {
				info["tokenizer.ggml.tokens"] = f.tokens
			}
		}
		writeJSON(w, http.StatusOK, api.ShowResponse{Details: api.ModelDetails{Family: "nomic-bert"}, ModelInfo: info})
	case "/api/embed":
		var req api.EmbedRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		f.mu.Lock()
		f.embeds = append(f.embeds, req)
		f.mu.Unlock()
		dim, ok := f.dimension(req.Model)
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
			return
		}
		var inputs []string
		switch in := req.Input.(type) {
		case string:
			inputs = []string{in}
		case []any:
			for _, v := range in {
				s, ok := v.(string)
				if !ok {
					writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid input type"})
					return
				}
				inputs = append(inputs, s)
			}
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid input type"})
			return
		}
		for _, in := range inputs {
			if (f.refuse != nil && f.refuse(in)) || (f.context > 0 && f.countTokens(in) > f.context) {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the input length exceeds the context length"})
				return
			}
		}
		resp := api.EmbedResponse{Model: req.Model, Embeddings: make([][]float32, len(inputs))}
		for i, in := range inputs {
			resp.Embeddings[i] = rawVector(in, dim)
		}
		writeJSON(w, http.StatusOK, resp)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeOllama) dimension(model string) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.models[model]
	return d, ok
}

func (f *fakeOllama) setDimension(model string, dim int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.models[model] = dim
}

func (f *fakeOllama) count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[path]
}

func (f *fakeOllama) embedRequests() []api.EmbedRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.EmbedRequest(nil), f.embeds...)
}

// rawVector is a deterministic, deliberately unnormalised vector for text
// (length about 5), so tests can tell which text a vector belongs to and
// whether deja normalised it.
func rawVector(text string, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	seed := h.Sum64()
	v := make([]float32, dim)
	for i := range v {
		seed = seed*6364136223846793005 + 1442695040888963407
		v[i] = float32(int64(seed>>33)%1000)/100 - 5
	}
	return v
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// dropConnection closes the TCP connection without answering, as a server
// that crashes mid-request does.
func dropConnection(t testing.TB, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijacking the connection: %v", err)
		return
	}
	conn.Close()
}

// countTokens counts an input's tokens as Ollama's BERT runner does.
func (f *fakeOllama) countTokens(in string) int {
	vocab := &tokenizer.Vocabulary{Values: f.tokens, BOS: []int32{2}, EOS: []int32{3}, AddBOS: true, AddEOS: true}
	ids, err := tokenizer.NewWordPiece(vocab, true).Encode(in, true)
	if err != nil {
		return len(in)
	}
	return len(ids)
}
