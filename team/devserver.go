//go:build !devnats

package team

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	stdsync "sync" // the tests declare sync
	"time"
)

// DevServer starts a NATS server with JetStream for trying team memory on
// one machine. It listens on 127.0.0.1 only, without TLS or accounts, and
// keeps its stream in dir; port 0 picks a free port. A team beyond one
// machine runs nats-server itself, with TLS and the accounts docs/team.md
// shows.
//
// This build of deja does not carry the server (it would be a third of the
// binary; the devnats build tag puts it back), so DevServer runs a program:
// DEJA_NATS_SERVER if set, else nats-server on PATH, else the release
// NATSServerModule names, installed once with the Go toolchain into
// dir/bin. What it does is said on note.
func DevServer(ctx context.Context, dir string, port int, note io.Writer) (Dev, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("team: creating %s: %w", dir, err)
	}
	port, err := loopbackPort(port)
	if err != nil {
		return nil, err
	}
	prog, err := natsServerProgram(ctx, filepath.Join(dir, "bin"), note)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(prog, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", dir, "-n", "deja-dev")
	out := &headBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("team: starting %s: %w", prog, err)
	}
	s := &devProcess{cmd: cmd, url: "nats://127.0.0.1:" + strconv.Itoa(port), exited: make(chan struct{})}
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()
	if err := s.ready(ctx, port, 15*time.Second); err != nil {
		s.Shutdown()
		return nil, fmt.Errorf("team: %s did not start: %w; it said: %s", prog, err, bytes.TrimSpace(out.Bytes()))
	}
	return s, nil
}

// loopbackPort is port when 127.0.0.1:port is free, or a free one for 0.
func loopbackPort(port int) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return 0, fmt.Errorf("team: port %d on 127.0.0.1 is taken (try --port 0 for a free one): %w", port, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// natsServerProgram finds or installs the nats-server program to run.
func natsServerProgram(ctx context.Context, bin string, note io.Writer) (string, error) {
	if p := os.Getenv("DEJA_NATS_SERVER"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("nats-server"); err == nil {
		return p, nil
	}
	exe := filepath.Join(bin, "nats-server")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if _, err := os.Stat(exe); err == nil {
		return exe, nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("team: serve-dev runs a nats-server program, and there is none on PATH (nor Go to build one): " +
			"install nats-server (2.10 or later, any platform's release) and run this again, or set DEJA_NATS_SERVER to its path; " +
			"a deja built with 'go install -tags devnats' carries the server itself")
	}
	fmt.Fprintf(note, "no nats-server on PATH: installing %s into %s with Go (once; a minute or two)\n", NATSServerModule, bin)
	install := exec.CommandContext(ctx, goTool, "install", NATSServerModule)
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if msg, err := install.CombinedOutput(); err != nil {
		return "", fmt.Errorf("team: go install %s: %w: %s (install nats-server yourself, or set DEJA_NATS_SERVER to its path)",
			NATSServerModule, err, bytes.TrimSpace(msg))
	}
	return exe, nil
}

// devProcess is a nats-server program DevServer started.
type devProcess struct {
	cmd     *exec.Cmd
	url     string
	exited  chan struct{}
	waitErr error
	once    stdsync.Once
}

func (s *devProcess) ClientURL() string { return s.url }

// ready waits until the server accepts connections on port, the program
// exits, ctx ends or limit passes.
func (s *devProcess) ready(ctx context.Context, port int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("it exited (%v)", s.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("it did not listen on %s within %s", addr, limit)
		}
	}
}

// Shutdown asks the server to stop, and kills it when it has not within
// five seconds.
func (s *devProcess) Shutdown() {
	s.once.Do(func() {
		if runtime.GOOS == "windows" || s.cmd.Process.Signal(os.Interrupt) != nil {
			s.cmd.Process.Kill()
		}
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-s.exited
		}
	})
}

// headBuffer keeps the first max bytes written to it: a server that fails
// says why at once.
type headBuffer struct {
	mu  stdsync.Mutex
	buf bytes.Buffer
	max int
}

func (b *headBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *headBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes()
}
