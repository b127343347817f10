package serve

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deja-dev/deja/memory/recall"
)

// The paths a server answers on.
const (
	MCPPath    = "/mcp"
	RecallPath = "/v1/recall"
	ShowPath   = "/v1/show"
)

// maxRequestBytes bounds a recall request's body; a query is a sentence.
const maxRequestBytes = 1 << 20

// NewHandler serves MCP over streamable HTTP at /mcp and the JSON recall
// endpoint at /v1/recall. With a token, every request must carry it as
// "Authorization: Bearer TOKEN". Requests from a browser page on another
// origin, and requests to a loopback address that name another host (DNS
// rebinding), are refused: a web page must not read a user's history.
func NewHandler(m *Memory, srv *mcp.Server, token string) http.Handler {
	mux := http.NewServeMux()
	// Stateless: each request stands alone, so many agents share one
	// server with no per-client session to keep or leak.
	mux.Handle(MCPPath, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	mux.HandleFunc("POST "+RecallPath, m.serveRecall)
	mux.HandleFunc("POST "+ShowPath, m.serveShow)
	var h http.Handler = mux
	h = http.NewCrossOriginProtection().Handler(h)
	h = localHostOnly(h)
	if token != "" {
		h = requireToken(token, h)
	}
	return h
}

func (m *Memory) serveRecall(w http.ResponseWriter, r *http.Request) {
	var req RecallRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("reading the request: %v: send a JSON object such as {\"query\": \"that tenant bug\"}", err))
		return
	}
	res, err := m.Recall(r.Context(), req)
	switch {
	case errors.Is(err, ErrBadRequest):
		writeError(w, http.StatusBadRequest, err.Error())
		return
	case errors.Is(err, recall.ErrEmpty), errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, NewRecallOutput(res))
}

// requireToken refuses, with 401, a request that does not carry the token.
// The comparison takes the same time however much of the token matches.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="deja"`)
			writeError(w, http.StatusUnauthorized, "this deja server needs its token: send 'Authorization: Bearer TOKEN', with the token deja serve was given (--token or DEJA_TOKEN) or made (serve.token in its data directory)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// localHostOnly refuses a request that reached a loopback address under
// another host name: a DNS rebinding page pointing its own name at
// 127.0.0.1. The MCP handler checks the same; this covers /v1/recall too.
func localHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopback(local.String()) && !isLoopback(r.Host) {
			writeError(w, http.StatusForbidden, fmt.Sprintf("host %q is not this machine's loopback address", r.Host))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopback reports whether a host or host:port names this machine's
// loopback: localhost, 127.0.0.0/8 or ::1.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckBind refuses to listen beyond this machine without a token: any
// address other than loopback lets other machines read the history.
func CheckBind(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("serve: address %q: %w (use HOST:PORT, such as 127.0.0.1:7464)", addr, err)
	}
	if token == "" && (host == "" || !isLoopback(host)) {
		return fmt.Errorf("serve: %s is reachable from other machines: give a token with --token or DEJA_TOKEN (every request must then carry 'Authorization: Bearer TOKEN'), or bind 127.0.0.1", addr)
	}
	return nil
}

// Timeouts bound every connection, so a client that sends slowly, or
// connects and says nothing, cannot hold the server's descriptors.
type Timeouts struct {
	// Header is the most time to read a request's headers; Request to
	// read the whole request, body included.
	Header, Request time.Duration
	// Write is the most time from the end of the headers to the end of
	// the answer; Idle how long a kept-alive connection may wait for its
	// next request.
	Write, Idle time.Duration
}

// DefaultTimeouts are deja serve's: a request is a sentence of JSON, read
// in microseconds; an answer may wait for an embedder's first load.
func DefaultTimeouts() Timeouts {
	return Timeouts{Header: 5 * time.Second, Request: 10 * time.Second, Write: 2 * time.Minute, Idle: time.Minute}
}

// maxHeaderBytes bounds a request's headers; deja's are a few lines.
const maxHeaderBytes = 64 << 10

// Serve answers on ln with DefaultTimeouts until ctx ends, then stops
// taking connections and waits up to grace for requests in flight.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration) error {
	return ServeTimeouts(ctx, ln, h, grace, DefaultTimeouts())
}

// ServeTimeouts is Serve with other timeouts.
func ServeTimeouts(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration, t Timeouts) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.Header,
		ReadTimeout:       t.Request,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("serve: stopping: %w", err)
	}
	return nil
}

type errorJSON struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorJSON{Error: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
