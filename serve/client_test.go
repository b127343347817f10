package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestClientWaitsForABusyServer pins the cause of a flaky served recall:
// the client used to give up after 2 s and fall back to the store, so on
// a loaded machine a live server's answer was thrown away at random. A
// server slower than that must still be the one that answers.
func TestClientWaitsForABusyServer(t *testing.T) {
	release := make(chan struct{})
	secret, _ := NewSecret()
	ts := httptest.NewServer(WithProof(secret, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		json.NewEncoder(w).Encode(RecallOutput{Query: "q", Embedder: "slow", Results: []RecallHit{}})
	})))
	defer ts.Close()
	// The answer comes after the old limit; nothing asserts a duration.
	time.AfterFunc(2500*time.Millisecond, func() { close(release) })
	out, err := NewClient(Info{URL: ts.URL, Secret: secret}).Recall(context.Background(), "", RecallRequest{Query: "q"})
	if err != nil {
		t.Fatalf("a live server answering after 2.5 s: %v; the client must wait for it", err)
	}
	if out.Embedder != "slow" {
		t.Fatalf("answer %+v", out)
	}
}

// TestClientTellsAMissingServerFromARefusal expects a stale serve.json
// (nothing listens) to read as ErrNotServing, and a server's error answer
// as ErrRefused, so the caller falls back quietly for both and says
// anything else.
func TestClientTellsAMissingServerFromARefusal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stale := "http://" + ln.Addr().String()
	ln.Close()
	secret, _ := NewSecret()
	_, err = NewClient(Info{URL: stale, Secret: secret}).Recall(context.Background(), "", RecallRequest{Query: "q"})
	if !errors.Is(err, ErrNotServing) {
		t.Errorf("nothing listening at %s: %v, want ErrNotServing", stale, err)
	}

	ts := httptest.NewServer(WithProof(secret, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such session")
	})))
	defer ts.Close()
	_, err = NewClient(Info{URL: ts.URL, Secret: secret}).Recall(context.Background(), "", RecallRequest{Query: "q"})
	if !errors.Is(err, ErrRefused) || errors.Is(err, ErrNotServing) {
		t.Errorf("a 404 answer: %v, want ErrRefused", err)
	}
}
