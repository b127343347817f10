package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// A client gives a server little time: a live local server connects in
// microseconds, and a stale serve.json (a killed server) must not slow
// recall down, since the caller falls back to reading the store itself.
// Answering may take longer the first time a server loads vectors.
const (
	dialTimeout   = 250 * time.Millisecond
	answerTimeout = 2 * time.Second
)

// Client asks a running server for recalls.
type Client struct {
	http *http.Client
}

// NewClient returns a client with deja's short timeouts.
func NewClient() *Client {
	dialer := &net.Dialer{Timeout: dialTimeout}
	return &Client{http: &http.Client{
		Timeout:   answerTimeout,
		Transport: &http.Transport{DialContext: dialer.DialContext, DisableCompression: true},
	}}
}

// Recall sends req to the server info names, with the token when one is
// given, and returns its answer. Any failure is an error: the caller reads
// the store itself instead.
func (c *Client) Recall(ctx context.Context, info Info, token string, req RecallRequest) (*RecallOutput, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, info.URL+RecallPath, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if token != "" {
		hr.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, err
	}
	// Read to the end, so the connection is kept for the next recall.
	defer func() {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		var e errorJSON
		json.NewDecoder(resp.Body).Decode(&e)
		return nil, fmt.Errorf("serve: %s: %s", resp.Status, e.Error)
	}
	var out RecallOutput
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("serve: reading the answer: %w", err)
	}
	return &out, nil
}
