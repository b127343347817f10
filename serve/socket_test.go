//go:build !windows

package serve

import (
	"context"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestListenLocalTakesOverAStaleSocketOnly: a socket nobody answers on (a
// killed server's) is replaced; one a server answers on, or a file that
// is no socket, is refused with a message that says what to do.
func TestListenLocalTakesOverAStaleSocketOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, SocketFile)
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	ll, err := ListenLocal(dir)
	if err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != fs.ModeSocket {
		t.Errorf("the socket: %v %v, want a 0600 socket", fi.Mode(), err)
	}
	if _, err := ListenLocal(dir); err == nil || !strings.Contains(err.Error(), "another deja serve answers") {
		t.Errorf("a second server for the same directory: %v", err)
	}
	ll.Close()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the socket outlived Close: %v", err)
	}

	os.WriteFile(path, []byte("not a socket"), 0o600)
	if _, err := ListenLocal(dir); err == nil || !strings.Contains(err.Error(), "is a regular file, not a socket") {
		t.Errorf("a regular file at serve.sock: %v", err)
	}
}

// TestListenLocalWithALongDataDir: a data directory whose path is too
// long for a socket gets its socket in a private temporary directory,
// which clients reach and Close removes.
func TestListenLocalWithALongDataDir(t *testing.T) {
	m, _ := fixture(t)
	dir := filepath.Join(t.TempDir(), strings.Repeat("a-long-directory-name/", 6))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ll, err := ListenLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(ll.Path, dir) || len(ll.Path) > maxSocketPath {
		t.Fatalf("socket at %s (%d bytes)", ll.Path, len(ll.Path))
	}
	if fi, err := os.Stat(filepath.Dir(ll.Path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the socket's directory: %v %v, want 0700", fi.Mode(), err)
	}
	secret, _ := NewSecret()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ll, WithProof(secret, NewHandler(m, NewMCPServer(m, "test"), "")), time.Second)
	}()
	out, err := NewClient(Info{Socket: ll.Path, Secret: secret}).Recall(ctx, "", RecallRequest{Query: "docker image"})
	if err != nil || len(out.Results) == 0 {
		t.Errorf("recall over the socket: %v", err)
	}
	stop()
	<-done
	if _, err := os.Stat(filepath.Dir(ll.Path)); !os.IsNotExist(err) {
		t.Errorf("the socket's directory outlived the server: %v", err)
	}
}
