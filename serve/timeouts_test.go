package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSlowClientsAreCutOff opens connections that send half a body and
// stall, send half their headers, or send nothing, many more than a
// server needs, and expects each to be closed by the server once its
// timeout passes, while a recall from a well-behaved client is answered
// meanwhile. The timeouts are short here; the deadline the test gives
// itself is long, so only a server that never closes fails it.
func TestSlowClientsAreCutOff(t *testing.T) {
	m, _ := fixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := NewSecret()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	tm := Timeouts{Header: 200 * time.Millisecond, Request: 300 * time.Millisecond, Write: 5 * time.Second, Idle: 300 * time.Millisecond}
	go func() {
		served <- ServeTimeouts(ctx, ln, WithProof(secret, NewHandler(m, NewMCPServer(m, "test"), "")), time.Second, tm)
	}()
	addr := ln.Addr().String()
	starts := map[string]string{
		"slow body":    "POST " + RecallPath + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"query\": \"doc",
		"slow headers": "POST " + RecallPath + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Ty",
		"silent":       "",
	}
	type slow struct {
		kind string
		c    net.Conn
	}
	var conns []slow
	for i := range 60 {
		kind := []string{"slow body", "slow headers", "silent"}[i%3]
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, starts[kind]); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, slow{kind, c})
	}

	info := Info{URL: "http://" + addr, Secret: secret}
	out, err := newClient(info, 0).Recall(ctx, "", RecallRequest{Query: "make the docker image smaller"})
	if err != nil || len(out.Results) == 0 {
		t.Errorf("a recall beside %d stalled connections: %v", len(conns), err)
	}

	for _, s := range conns {
		s.c.SetReadDeadline(time.Now().Add(20 * time.Second))
		_, err := io.ReadAll(s.c)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("a %s connection was still open after 20 s", s.kind)
			break
		}
	}
	stop()
	if err := <-served; err != nil {
		t.Errorf("ServeTimeouts: %v", err)
	}
}

// TestIdleConnectionIsClosed: a client that made a request and keeps the
// connection without another is let go after the idle timeout.
func TestIdleConnectionIsClosed(t *testing.T) {
	m, _ := fixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	tm := Timeouts{Header: time.Second, Request: time.Second, Write: 5 * time.Second, Idle: 200 * time.Millisecond}
	go ServeTimeouts(ctx, ln, NewHandler(m, NewMCPServer(m, "test"), ""), time.Second, tm)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"query":"docker"}`
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", RecallPath, ln.Addr(), len(body), body)
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	got, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("an idle kept-alive connection was still open after 20 s")
	}
	if !strings.HasPrefix(string(got), "HTTP/1.1 200") {
		t.Errorf("the request before idling: %.80q", got)
	}
}
