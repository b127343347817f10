//go:build !devnats

package team

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/deja-dev/deja/internal/racebuild"
)

// Without the devnats tag, DevServer runs a nats-server program: with none
// on PATH it installs go.mod's release with Go once, then reuses it, and
// the server it starts takes a team's stream.
func TestDevServerInstallsAndRunsNATSServer(t *testing.T) {
	if _, err := exec.LookPath("nats-server"); err == nil {
		t.Skip("a nats-server on PATH would be run instead of the one DevServer installs")
	}
	if racebuild.Enabled {
		t.Setenv("GOFLAGS", "-race")
	}
	t.Setenv("DEJA_NATS_SERVER", "")
	dir := t.TempDir()
	var note bytes.Buffer
	s, err := DevServer(context.Background(), dir, 0, &note)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if !strings.Contains(note.String(), "installing "+NATSServerModule) {
		t.Errorf("DevServer said %q, want it to say it installs %s", note.String(), NATSServerModule)
	}
	if !strings.HasPrefix(s.ClientURL(), "nats://127.0.0.1:") {
		t.Errorf("dev server at %s, want loopback only", s.ClientURL())
	}
	alice := newPeer(t, history(1, 2, "alice"))
	m := alice.connect(t, s.ClientURL(), "alice")
	if rep := sync(t, m); rep.Published.Turns != 2 {
		t.Errorf("published %d turns, want 2", rep.Published.Turns)
	}
	st, err := m.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages != 2 || st.Lag != 0 || st.Unsent != 0 || st.Counts.SentTurns != 2 {
		t.Errorf("status = %+v, want 2 messages, all sent and folded", st)
	}
	m.Close()
	s.Shutdown()

	// The installed program is reused, and the stream outlives the server.
	note.Reset()
	s, err = DevServer(context.Background(), dir, 0, &note)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if note.Len() != 0 {
		t.Errorf("second start said %q, want nothing: the program is installed", note.String())
	}
	m = alice.connect(t, s.ClientURL(), "alice")
	defer m.Close()
	if st, err := m.Status(context.Background()); err != nil || st.Messages != 2 {
		t.Errorf("after a restart: status %+v, %v; want the 2 messages kept", st, err)
	}
}

// A port in use, and no program to run, are refused with what to do next.
func TestDevServerRefusals(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if _, err := DevServer(context.Background(), t.TempDir(), port, os.Stderr); err == nil || !strings.Contains(err.Error(), "--port 0") {
		t.Errorf("port %d in use: err = %v, want a refusal that suggests --port 0", port, err)
	}

	t.Setenv("DEJA_NATS_SERVER", "")
	t.Setenv("PATH", t.TempDir())
	_, err = DevServer(context.Background(), t.TempDir(), 0, os.Stderr)
	if err == nil || !strings.Contains(err.Error(), "install nats-server") || !strings.Contains(err.Error(), "DEJA_NATS_SERVER") {
		t.Errorf("nothing to run: err = %v, want one that says to install nats-server or set DEJA_NATS_SERVER", err)
	}

	// A program that exits at once is reported with what it said.
	fake := filepath.Join(t.TempDir(), "nats-server")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'cannot open store' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DEJA_NATS_SERVER", fake)
	if _, err := DevServer(context.Background(), t.TempDir(), 0, os.Stderr); err == nil || !strings.Contains(err.Error(), "cannot open store") {
		t.Errorf("failing program: err = %v, want its own words", err)
	}
}

// NATSServerModule names the release go.mod requires, so serve-dev runs
// the server the tests ran.
func TestNATSServerModuleMatchesGoMod(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*github.com/nats-io/nats-server/v2 (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod requires no nats-server")
	}
	if want := "github.com/nats-io/nats-server/v2@" + string(m[1]); NATSServerModule != want {
		t.Errorf("NATSServerModule = %s, go.mod requires %s", NATSServerModule, want)
	}
}
