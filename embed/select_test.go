package embed

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestSelectBuiltinNeverTouchesTheNetwork(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	e, line, err := Select(context.Background(), Options{Provider: "builtin", Host: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	if e.Identity() != "builtin:glove-100d-80k" {
		t.Errorf("got %s, want builtin:glove-100d-80k", e.Identity())
	}
	for _, path := range []string{"/api/version", "/api/show", "/api/embed"} {
		if n := fake.count(path); n != 0 {
			t.Errorf("builtin sent %d requests to %s", n, path)
		}
	}
	if line != "deja: embedding with builtin:glove-100d-80k (embed.provider is builtin)" {
		t.Errorf("line %q", line)
	}
}

func TestSelectAutoUsesOllamaWhenItHasTheModel(t *testing.T) {
	fake := newFakeOllama(t, map[string]int{"nomic-embed-text": 768})
	e, line, err := Select(context.Background(), Options{Host: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	if e.Identity() != "ollama:nomic-embed-text" || e.Dimension() != 768 {
		t.Errorf("got %s (%d-d), want ollama:nomic-embed-text (768-d)", e.Identity(), e.Dimension())
	}
	if want := "deja: embedding with ollama:nomic-embed-text at " + fake.URL; line != want {
		t.Errorf("line %q, want %q", line, want)
	}
}

func TestSelectAutoFallsBackToBuiltinAndSaysWhy(t *testing.T) {
	missingModel := newFakeOllama(t, map[string]int{"all-minilm": 384})
	stopped := newFakeOllama(t, nil)
	stopped.Close()
	hanging := newFakeOllama(t, nil)
	hanging.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
		return true
	}
	for _, tc := range []struct {
		name, host, why string
	}{
		{"model missing", missingModel.URL, `model "nomic-embed-text" is not pulled into the Ollama at ` + missingModel.URL + "; run 'ollama pull nomic-embed-text' to use ollama:nomic-embed-text"},
		{"not running", stopped.URL, "Ollama is not reachable at " + stopped.URL + "; start it with 'ollama serve' to use ollama:nomic-embed-text"},
		{"not answering", hanging.URL, "Ollama did not answer at " + hanging.URL + " within 1.5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			e, line, err := Select(context.Background(), Options{Provider: "auto", Host: tc.host})
			if err != nil {
				t.Fatalf("auto failed instead of falling back: %v", err)
			}
			// Not a performance check: auto must give up on a silent
			// Ollama instead of waiting out embed.timeout (60s).
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("auto took %s to fall back", d)
			}
			if e.Identity() != "builtin:glove-100d-80k" {
				t.Errorf("got %s, want builtin:glove-100d-80k", e.Identity())
			}
			if want := "deja: embedding with builtin:glove-100d-80k (" + tc.why + ")"; line != want {
				t.Errorf("line\n%q\nwant\n%q", line, want)
			}
			if strings.Contains(line, "\n") {
				t.Error("the line has a newline in it")
			}
		})
	}
}

func TestSelectOllamaFailsLoudly(t *testing.T) {
	missingModel := newFakeOllama(t, map[string]int{})
	stopped := newFakeOllama(t, nil)
	stopped.Close()
	for host, want := range map[string]string{
		missingModel.URL: "run 'ollama pull nomic-embed-text'",
		stopped.URL:      "start it with 'ollama serve'",
	} {
		e, _, err := Select(context.Background(), Options{Provider: "ollama", Host: host})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, %v; want an error saying %q", host, e, err, want)
		}
	}
}

func TestSelectRejectsAnUnknownProvider(t *testing.T) {
	_, _, err := Select(context.Background(), Options{Provider: "openai"})
	if err == nil || !strings.Contains(err.Error(), "auto, ollama or builtin") {
		t.Errorf("got %v, want the valid providers listed", err)
	}
}
