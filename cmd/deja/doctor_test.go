package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/serve"
)

// The script tests see Ollama, serve and the lock only when absent or
// stale; these see them present.

func TestDoctorOllamaReachableWithAndWithoutTheModel(t *testing.T) {
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/version":
			json.NewEncoder(w).Encode(map[string]string{"version": "0.17.4"})
		case "/api/show":
			var req api.ShowRequest
			json.NewDecoder(r.Body).Decode(&req)
			if req.Model != "nomic-embed-text" {
				w.WriteHeader(http.StatusNotFound)
				json.NewEncoder(w).Encode(map[string]string{"error": "model '" + req.Model + "' not found"})
				return
			}
			json.NewEncoder(w).Encode(api.ShowResponse{ModelInfo: map[string]any{
				"general.architecture": "nomic-bert", "nomic-bert.embedding_length": 768,
			}})
		default:
			http.NotFound(w, r)
		}
	}))
	defer fake.Close()

	cfg := config.Config{Ollama: config.Ollama{Host: fake.URL}, Embed: config.Embed{Model: "nomic-embed-text"}}
	h := ollamaDiagnosis(context.Background(), cfg)
	if !h.Reachable || h.ModelPulled == nil || !*h.ModelPulled || h.Error != "" {
		t.Errorf("pulled model: %+v", h)
	}
	cfg.Embed.Model = "mxbai-embed-large"
	h = ollamaDiagnosis(context.Background(), cfg)
	if !h.Reachable || h.ModelPulled == nil || *h.ModelPulled {
		t.Errorf("missing model: %+v", h)
	}
	fake.Close()
	h = ollamaDiagnosis(context.Background(), cfg)
	if h.Reachable || h.ModelPulled != nil {
		t.Errorf("stopped Ollama: %+v", h)
	}
}

func TestDoctorSeesARunningServer(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	secret, _ := serve.NewSecret()
	go http.Serve(ln, serve.WithProof(secret, http.NotFoundHandler()))
	info := serve.Info{URL: "http://" + ln.Addr().String(), Secret: secret, PID: 4242, DataDir: dir}
	if err := serve.WriteInfo(dir, info); err != nil {
		t.Fatal(err)
	}
	h := serveDiagnosis(context.Background(), dir)
	if !h.Running || h.PID != 4242 || h.Error != "" {
		t.Errorf("running server: %+v", h)
	}
	// Something else at the address is not the server.
	other, _ := serve.NewSecret()
	info.Secret = other
	serve.WriteInfo(dir, info)
	if h = serveDiagnosis(context.Background(), dir); h.Running {
		t.Errorf("a listener that does not know the secret: %+v", h)
	}
	ln.Close()
	h = serveDiagnosis(context.Background(), dir)
	if h.Running || h.Error == "" {
		t.Errorf("stopped server: %+v", h)
	}
}

func TestDoctorNamesTheLockHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := store.AcquireLock(context.Background(), dir, store.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := lockDiagnosis(context.Background(), dir)
	if !h.Held || h.PID != os.Getpid() {
		t.Errorf("held lock: %+v, want pid %d", h, os.Getpid())
	}
	l.Unlock()
	if h := lockDiagnosis(context.Background(), dir); h.Held {
		t.Errorf("released lock: %+v", h)
	}
}
