//go:build linux

package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// otherUID is the user the probe runs as: nobody on Debian and most
// Linux systems.
const otherUID = 65534

// probeEnv carries the serve.json a probe child tries to reach.
const probeEnv = "DEJA_TEST_OTHER_USER_PROBE"

// TestAnotherLocalUserCannotReachTheServer serves a store as 'deja serve
// --addr' does and runs a child process as another user, which tries to
// read serve.json, to connect to the socket and to recall over TCP. As
// deja makes the data directory (0700) it reaches nothing; with the
// directory and socket opened to everyone by hand, the server still drops
// its socket connection, since the peer is not its user.
func TestAnotherLocalUserCannotReachTheServer(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("running a child as another user needs root (syscall.Credential); as an ordinary user this test cannot switch uid")
	}
	m, _ := fixture(t)
	base, err := os.MkdirTemp("", "deja-other-user-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(base, "probe.test")
	if err := copyExecutable(probe); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(base, "data")
	if err := os.Mkdir(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}

	secret, _ := NewSecret()
	token, _ := NewToken()
	local, err := ListenLocal(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	mcpServer := NewMCPServer(m, "test")
	go Serve(ctx, local, WithProof(secret, NewHandler(m, mcpServer, "")), time.Second)
	go Serve(ctx, tcp, WithProof(secret, NewHandler(m, mcpServer, token)), time.Second)
	info := Info{Socket: local.Path, URL: "http://" + tcp.Addr().String(), Secret: secret, Token: true, DataDir: dataDir}
	if err := WriteInfo(dataDir, info); err != nil {
		t.Fatal(err)
	}
	// The owner itself gets through, so the refusals below are the other
	// user's.
	if out, err := NewClient(info).Recall(ctx, "", RecallRequest{Query: "docker image"}); err != nil || len(out.Results) == 0 {
		t.Fatalf("the owner's recall over the socket: %v", err)
	}

	run := func() map[string]string {
		t.Helper()
		cmd := exec.Command(probe, "-test.run=^TestProbeAsAnotherUser$")
		cmd.Dir = base
		cmd.Env = []string{probeEnv + "=" + filepath.Join(dataDir, InfoFile) + "|" + info.Socket + "|" + info.URL}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: otherUID, Gid: otherUID}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("probe as uid %d: %v\n%s", otherUID, err, out)
		}
		got := map[string]string{}
		for _, line := range strings.Split(string(out), "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(k, "probe ") {
				got[strings.TrimPrefix(k, "probe ")] = v
			}
		}
		return got
	}

	got := run()
	for _, k := range []string{"serve.json", "socket"} {
		if !strings.Contains(got[k], "permission denied") {
			t.Errorf("as deja makes the data directory, another user's %s: %q, want permission denied", k, got[k])
		}
	}
	checkTCP := func(got map[string]string) {
		for _, k := range []string{"tcp recall", "tcp mcp"} {
			if got[k] != "401" {
				t.Errorf("another user's %s without the token: %q, want 401", k, got[k])
			}
		}
	}
	checkTCP(got)

	// Opened by hand to everyone: the file's own mode still guards
	// serve.json, and the server drops the socket connection.
	os.Chmod(dataDir, 0o755)
	os.Chmod(info.Socket, 0o666)
	got = run()
	if !strings.Contains(got["serve.json"], "permission denied") {
		t.Errorf("another user read serve.json: %q", got["serve.json"])
	}
	if !strings.HasPrefix(got["socket"], "dropped") {
		t.Errorf("with the socket open to everyone, another user's recall: %q, want the connection dropped", got["socket"])
	}
	checkTCP(got)
}

// copyExecutable copies this test binary to path, where another user can
// run it (the build directory is its builder's alone).
func copyExecutable(path string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	src, err := os.Open(exe)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// TestProbeAsAnotherUser is the child of
// TestAnotherLocalUserCannotReachTheServer; it does nothing unless started
// by it. It prints one "probe KIND: RESULT" line for each way in.
func TestProbeAsAnotherUser(t *testing.T) {
	spec := os.Getenv(probeEnv)
	if spec == "" {
		t.Skip("the other-user probe runs only as TestAnotherLocalUserCannotReachTheServer's child")
	}
	parts := strings.Split(spec, "|")
	infoFile, socket, url := parts[0], parts[1], parts[2]
	if _, err := os.ReadFile(infoFile); err != nil {
		fmt.Printf("probe serve.json: %v\n", err)
	} else {
		fmt.Printf("probe serve.json: read\n")
	}
	body := `{"query":"docker image"}`
	if c, err := net.DialTimeout("unix", socket, time.Second); err != nil {
		fmt.Printf("probe socket: %v\n", err)
	} else {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", RecallPath, len(body), body)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			fmt.Printf("probe socket: dropped (%v)\n", err)
		} else {
			fmt.Printf("probe socket: answered %d\n", resp.StatusCode)
		}
		c.Close()
	}
	for kind, path := range map[string]string{"tcp recall": RecallPath, "tcp mcp": MCPPath} {
		req, _ := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			fmt.Printf("probe %s: %v\n", kind, err)
			continue
		}
		var e json.RawMessage
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		fmt.Printf("probe %s: %d\n", kind, resp.StatusCode)
	}
}
