package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// A client tells "no server" from "a server answering slowly", and only
// the first falls back. A killed server's stale serve.json names a socket
// or loopback port nobody listens on, which refuses the connection at
// once, whatever the timeout; dialTimeout only bounds a kernel that does
// not answer at all. Once connected, the client waits for the proof and
// the answer: a live server does the same work a local recall would (less:
// its vectors are loaded), so falling back after a fixed time only did the
// recall twice, and under load it made recall's path depend on the clock
// (a 2 s limit sent recalls to the store on a busy machine, at random:
// the TestRecallSessionThroughARunningServer flake). answerTimeout is not
// a deadline for a busy server but the point at which one that accepted
// and then stopped (SIGSTOP, a debugger) is given up on, and the caller
// says so.
const (
	dialTimeout   = 5 * time.Second
	answerTimeout = time.Minute
)

// ErrRefused marks a server that answered with an error about the request
// (an unknown session, say): the caller asks the store itself, which says
// what is wrong as a recall without a server would.
var ErrRefused = errors.New("serve: the server refused the recall")

// ErrNotServing means no server for serve.json answers at the place it
// names: nothing listens there, or whatever does cannot prove it knows the
// file's secret (another process took a dead server's port). The file is
// stale; RemoveStaleInfo removes it.
var ErrNotServing = errors.New("no server answers for serve.json")

// Client asks a running server for recalls. Every connection it makes
// first checks the server's proof (ProofPath); a query, and a token, are
// only ever sent on a connection that passed.
type Client struct {
	info Info
	http *http.Client
	base string
}

// NewClient returns a client for the server info names (its socket when
// it has one, else its URL) that falls back at once when nothing listens
// and waits for a server that does.
func NewClient(info Info) *Client {
	return newClient(info, answerTimeout)
}

// newClient is NewClient with another patience for answers; 0 waits as
// long as the caller's context.
func newClient(info Info, patience time.Duration) *Client {
	c := &Client{info: info}
	network, addr, base := "unix", info.Socket, "http://localhost"
	if info.Socket == "" {
		network, base = "tcp", strings.TrimSuffix(info.URL, "/")
		if u, err := url.Parse(info.URL); err == nil {
			addr = u.Host
		}
	}
	c.base = base
	c.http = &http.Client{
		Timeout: patience,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return dialProven(ctx, network, addr, info.Secret)
			},
			DisableCompression: true,
		},
	}
	return c
}

// dialProven connects and asks for the server's proof before the
// connection is used for anything else.
func dialProven(ctx context.Context, network, addr, secret string) (net.Conn, error) {
	if secret == "" {
		return nil, fmt.Errorf("%w: serve.json holds no secret (a server older than this deja)", ErrNotServing)
	}
	if addr == "" {
		return nil, fmt.Errorf("%w: serve.json names no address", ErrNotServing)
	}
	var conn net.Conn
	var err error
	if network == "unix" {
		conn, err = dialLocal(ctx, addr)
	} else {
		d := net.Dialer{Timeout: dialTimeout}
		conn, err = d.DialContext(ctx, network, addr)
	}
	if err != nil {
		if ctx.Err() == nil && !isTimeout(err) {
			err = fmt.Errorf("%w: %v", ErrNotServing, err)
		}
		return nil, err
	}
	if err := askProof(conn, network, addr, secret); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// askProof sends one proof request on conn and checks the answer. The
// server speaks only when asked, so nothing of a later answer is read.
func askProof(conn net.Conn, network, addr, secret string) error {
	nb := make([]byte, secretBytes)
	if _, err := rand.Read(nb); err != nil {
		return err
	}
	nonce := hex.EncodeToString(nb)
	body, _ := json.Marshal(proofRequest{Nonce: nonce})
	host := addr
	if network == "unix" {
		host = "localhost"
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+host+ProofPath, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	conn.SetDeadline(time.Now().Add(answerTimeout))
	defer conn.SetDeadline(time.Time{})
	if err := req.Write(conn); err != nil {
		return fmt.Errorf("%w: %v", ErrNotServing, err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		if isTimeout(err) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrNotServing, err)
	}
	var ans proofAnswer
	derr := json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&ans)
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	switch {
	case resp.StatusCode != http.StatusOK || derr != nil || !checkProof(secret, nonce, ans.Proof):
		return fmt.Errorf("%w: what answers at %s does not know serve.json's secret", ErrNotServing, addr)
	case br.Buffered() > 0 || resp.Close:
		return fmt.Errorf("%w: the proof's connection cannot carry the query", ErrNotServing)
	}
	return nil
}

// Recall sends req, with the token when one is given and the server is
// reached over TCP, and returns the answer. Any failure is an error: the
// caller reads the store itself instead.
func (c *Client) Recall(ctx context.Context, token string, req RecallRequest) (*RecallOutput, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+RecallPath, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if token != "" && c.info.Socket == "" {
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
		return nil, fmt.Errorf("%w: %s: %s", ErrRefused, resp.Status, e.Error)
	}
	var out RecallOutput
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("serve: reading the answer: %w", err)
	}
	return &out, nil
}

// Reach connects to the server info names and checks its proof, for
// 'deja doctor'.
func Reach(ctx context.Context, info Info) error {
	network, addr := "unix", info.Socket
	if addr == "" {
		network = "tcp"
		if u, err := url.Parse(info.URL); err == nil {
			addr = u.Host
		}
	}
	conn, err := dialProven(ctx, network, addr, info.Secret)
	if err != nil {
		return err
	}
	return conn.Close()
}

// WaitServing waits until a service for dataDir answers with its proof,
// polling every poll, for at most limit: what benchmarks and tests do
// after starting one.
func WaitServing(dataDir string, limit, poll time.Duration) error {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(poll) {
		info, err := ReadInfo(dataDir)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = Reach(ctx, info)
		cancel()
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("no deja serve answered for %s within %s", dataDir, limit)
}

// StopPath is where a service's owner asks it to stop, on its socket
// only ('deja serve --stop').
const StopPath = "/v1/stop"

// Stop asks the server to stop, once it has proven itself, and returns
// when it said it will; the caller waits for its lock to go.
func (c *Client) Stop(ctx context.Context) error {
	if c.info.Socket == "" {
		return fmt.Errorf("serve: the server at %s has no socket: stop it where it runs (pid %d)", c.info.URL, c.info.PID)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+StopPath, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s", ErrRefused, resp.Status)
	}
	return nil
}
