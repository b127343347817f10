// Package realollama tests deja against a real Ollama server: the binary
// that scripts/ollama-build.sh builds at the version go.mod names, serving
// BERT models that embed/bertgen writes (nothing is downloaded). The tests
// run only when DEJA_IT_OLLAMA names that binary, as scripts/ollama-it.sh
// does; a plain 'go test ./...' skips them.
package realollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

	"github.com/deja-dev/deja/embed/bertgen"
)

// The models every test can use, created once in TestMain.
const (
	model512  = "glove-512"        // a 512-token context, as most embedding models have
	model4096 = "nomic-embed-text" // a 4096-token context, under the name deja defaults to (and prefixes for)
)

var (
	ollamaBin = os.Getenv("DEJA_IT_OLLAMA")
	dejaBin   string
	workDir   string
	shared    *server // the server most tests share
)

func TestMain(m *testing.M) {
	if ollamaBin == "" {
		fmt.Println("realollama: DEJA_IT_OLLAMA is not set; scripts/ollama-it.sh builds Ollama and runs these tests")
		os.Exit(m.Run())
	}
	code, err := setUp(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "realollama:", err)
		code = 1
	}
	os.Exit(code)
}

func setUp(m *testing.M) (int, error) {
	var err error
	workDir, err = os.MkdirTemp("", "deja-realollama-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(workDir)
	dejaBin = filepath.Join(workDir, "deja")
	build := exec.Command("go", "build", "-o", dejaBin, "github.com/deja-dev/deja/cmd/deja")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return 0, fmt.Errorf("building deja: %w", err)
	}
	shared, err = startServer(filepath.Join(workDir, "models"), 0)
	if err != nil {
		return 0, err
	}
	defer shared.stop()
	for _, mdl := range []struct {
		name    string
		context int
	}{{model512, 512}, {model4096, 4096}} {
		if err := shared.create(mdl.name, mdl.context); err != nil {
			return 0, err
		}
	}
	return m.Run(), nil
}

// requireOllama skips a test when no Ollama binary was given.
func requireOllama(t *testing.T) {
	t.Helper()
	if ollamaBin == "" {
		t.Skip("DEJA_IT_OLLAMA is not set: run scripts/ollama-it.sh")
	}
}

// server is one 'ollama serve' on loopback.
type server struct {
	host   string // 127.0.0.1:PORT
	models string
	cmd    *exec.Cmd
	log    *os.File
	done   chan error
}

// startServer starts 'ollama serve' with its models in dir on port (0: a
// free one) and waits until it answers.
func startServer(models string, port int) (*server, error) {
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	if err := os.MkdirAll(models, 0o755); err != nil {
		return nil, err
	}
	s := &server{host: fmt.Sprintf("127.0.0.1:%d", port), models: models, done: make(chan error, 1)}
	log, err := os.OpenFile(filepath.Join(workDir, fmt.Sprintf("ollama-%d.log", port)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	s.log = log
	s.cmd = exec.Command(ollamaBin, "serve")
	s.cmd.Env = s.env()
	s.cmd.Stdout, s.cmd.Stderr = log, log
	s.cmd.SysProcAttr = serverAttr()
	if err := s.cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	go func() { s.done <- s.cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + s.host + "/api/version")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("ollama serve exited: %v (log: %s)", err, log.Name())
		case <-time.After(100 * time.Millisecond):
		}
	}
	s.stop()
	return nil, fmt.Errorf("ollama serve did not answer at %s within 60s (log: %s)", s.host, log.Name())
}

func (s *server) env() []string {
	return append(os.Environ(),
		"OLLAMA_HOST="+s.host,
		"OLLAMA_MODELS="+s.models,
		"HOME="+filepath.Join(workDir, "home"), // ollama keeps its key pair there
		"OLLAMA_NOPRUNE=1",
	)
}

// stop ends the server (SIGTERM, then SIGKILL after 10 s) and its runners.
func (s *server) stop() {
	if s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	s.log.Close()
}

// create writes a bertgen model of the given context and 'ollama create's
// it under name.
func (s *server) create(name string, context int) error {
	dir := filepath.Join(workDir, "src-"+name)
	if err := bertgen.Write(dir, bertgen.Options{Context: context}); err != nil {
		return err
	}
	modelfile := filepath.Join(dir, "Modelfile")
	if err := os.WriteFile(modelfile, []byte("FROM "+dir+"\n"), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(ollamaBin, "create", name, "-f", modelfile)
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("ollama create %s: %v\n%s", name, err, out)
	}
	return nil
}

// post sends a JSON request to the server and decodes its answer into out.
func (s *server) post(path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	resp, err := http.Post("http://"+s.host+path, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", path, resp.Status, body)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}

// unload asks the server to drop model from memory, so the next request
// waits for it to load.
func (s *server) unload(t *testing.T, model string) {
	t.Helper()
	if err := s.post("/api/embed", map[string]any{"model": model, "input": []string{}, "keep_alive": 0}, nil); err != nil {
		t.Fatalf("unloading %s: %v", model, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if !s.loaded(model) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s is still loaded 30s after keep_alive 0", model)
}

// deja is one deja configuration: a store of its own, Ollama at host.
type deja struct {
	t    *testing.T
	env  []string
	data string
}

func newDeja(t *testing.T, host, provider, model string) *deja {
	dir := t.TempDir()
	d := &deja{t: t, data: filepath.Join(dir, "data")}
	d.env = append(os.Environ(),
		"HOME="+filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(dir, "share"),
		"DEJA_DATA_DIR="+d.data,
		"DEJA_AIDER_ROOTS="+filepath.Join(dir, "none"),
		"DEJA_OLLAMA_HOST="+host,
		"DEJA_EMBED_PROVIDER="+provider,
		"DEJA_EMBED_MODEL="+model,
		// These tests are about what deja does, not how fast a busy CPU
		// embeds: a request may take minutes when other builds share it.
		"DEJA_EMBED_TIMEOUT=10m",
	)
	return d
}

// result is what one deja command did.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// run runs deja with args and returns what it did; a deja that cannot be
// started fails the test.
func (d *deja) run(args ...string) result {
	d.t.Helper()
	return d.runContext(context.Background(), args...)
}

func (d *deja) runContext(ctx context.Context, args ...string) result {
	d.t.Helper()
	cmd := exec.CommandContext(ctx, dejaBin, args...)
	cmd.Env = d.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		d.t.Fatalf("running deja %v: %v", args, err)
	}
	return r
}

// mustRun runs deja and fails the test unless it exits 0.
func (d *deja) mustRun(args ...string) result {
	d.t.Helper()
	r := d.run(args...)
	if r.code != 0 {
		d.t.Fatalf("deja %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// embedderStatus is one embedder of 'deja status --json'.
type embedderStatus struct {
	Identity string `json:"identity"`
	Turns    int    `json:"turns"`
	Lacking  int    `json:"lacking"`
}

type status struct {
	Turns     int              `json:"turns"`
	Embedders []embedderStatus `json:"embedders"`
}

func (d *deja) status() status {
	d.t.Helper()
	var st status
	r := d.mustRun("status", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		d.t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	return st
}

// embedder returns the status of the embedder named identity.
func (st status) embedder(identity string) (embedderStatus, bool) {
	for _, e := range st.Embedders {
		if e.Identity == identity {
			return e, true
		}
	}
	return embedderStatus{}, false
}

// corpus returns the real aider histories beside the checkout (every
// .md file there: not all carry aider's file name), or skips.
func corpus(t testing.TB) []string {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/aider/corpus")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	if len(files) == 0 {
		t.Skip("../shared/aider/corpus is not beside the checkout")
	}
	return files
}

// smallCorpus is the corpus's histories under 100 KB, without the big
// ones that hold most of its turns: enough for the tests that interrupt or
// race an index, in a fraction of the time.
func smallCorpus(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, f := range corpus(t) {
		if fi, err := os.Stat(f); err == nil && fi.Size() < 100<<10 {
			out = append(out, f)
		}
	}
	return out
}

// refusals counts the embed requests the server refused so far, from its
// log.
func (s *server) refusals() int {
	b, err := os.ReadFile(s.log.Name())
	if err != nil {
		return -1
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"/api/embed"`) && strings.Contains(line, "| 400 |") {
			n++
		}
	}
	return n
}

// get fetches path from the server and decodes its JSON answer into out.
func (s *server) get(path string, out any) error {
	resp, err := http.Get("http://" + s.host + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
