package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// A client tells "no server" from "a server answering slowly", and only
// the first falls back. A killed server's stale serve.json names a
// loopback port nobody listens on, which refuses the connection at once,
// whatever the timeout; dialTimeout only bounds a kernel that does not
// answer at all. Once connected, the client waits for the answer: a live
// server does the same work a local recall would (less: its vectors are
// loaded), so falling back after a fixed time only did the recall twice,
// and under load it made recall's path depend on the clock (a 2 s answer
// limit sent recalls to the store on a busy machine, at random).
// answerGuard is not a deadline for a busy server but the point at which a
// server that accepted and then stopped (SIGSTOP, a debugger) is given up
// on, loudly (ErrNoAnswer).
const (
	dialTimeout = 5 * time.Second
	answerGuard = time.Minute
)

// ErrNoServer marks a server that is not there: nothing listens where
// serve.json says (a stale file). Any other failure of a served recall is
// worth telling the user about.
var ErrNoServer = errors.New("serve: no server listens")

// ErrNoAnswer marks a server that accepted the connection and did not
// answer within answerGuard.
var ErrNoAnswer = errors.New("serve: the server accepted the recall and did not answer")

// ErrRefused marks a server that answered with an error about the request
// (an unknown session, say): the caller asks the store itself, which says
// what is wrong as a recall without a server would.
var ErrRefused = errors.New("serve: the server refused the recall")

// Client asks a running server for recalls.
type Client struct {
	http *http.Client
}

// NewClient returns a client that falls back fast on a missing server and
// waits for a live one.
func NewClient() *Client {
	dialer := &net.Dialer{Timeout: dialTimeout}
	return &Client{http: &http.Client{
		Timeout:   answerGuard,
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
	var op *net.OpError
	switch {
	case err == nil:
	case errors.As(err, &op) && op.Op == "dial":
		return nil, fmt.Errorf("%w at %s: %v", ErrNoServer, info.URL, err)
	case isTimeout(err):
		return nil, fmt.Errorf("%w in %s", ErrNoAnswer, answerGuard)
	default:
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
		return nil, fmt.Errorf("%w: %s: %s", ErrRefused, resp.Status, e.Error)
	}
	var out RecallOutput
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("serve: reading the answer: %w", err)
	}
	return &out, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
