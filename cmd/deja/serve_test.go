package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory"
	"github.com/deja-dev/deja/serve"
)

// TestRecallOutputIsRecallJSON holds the recall tool's structured content
// and the server's answer to the layout of 'deja recall --json', and
// checks that an answer through a server prints the same JSON again.
func TestRecallOutputIsRecallJSON(t *testing.T) {
	started := time.Date(2026, 7, 14, 10, 12, 31, 0, time.FixedZone("CEST", 2*3600))
	r := &memory.Recall{
		Query: "tenant leak", Mode: memory.Hybrid, RealizedMode: memory.Keyword, FallbackReason: "no vectors",
		Embedder: "builtin:glove-100d", Took: 12345 * time.Microsecond, Note: "a note",
		Results: []memory.Result{
			{SessionID: "aider-0123456789ab-20260714T101231", Turn: 2, Score: 0.0327869, Started: started,
				History: "/p/.aider.chat.history.md", Project: "/p", Line: 17, User: "why? " + strings.Repeat("é", 2500),
				Assistant: strings.Repeat("long answer ", 80), Files: []string{"a.go"}, KeywordRank: 1, SemanticRank: 3, Similarity: 0.61234},
			{SessionID: "aider-0123456789ab-20260715T000000", Turn: -1, Score: -1.5},
		},
	}
	var cli bytes.Buffer
	if err := printRecallJSON(&IO{Out: &cli}, r); err != nil {
		t.Fatal(err)
	}
	var tool bytes.Buffer
	enc := json.NewEncoder(&tool)
	enc.SetIndent("", "  ")
	out := serve.NewRecallOutput(r)
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	if cli.String() != tool.String() {
		t.Fatalf("deja recall --json:\n%s\nserve.RecallOutput:\n%s", cli.String(), tool.String())
	}
	var again bytes.Buffer
	printRecallJSON(&IO{Out: &again}, recallOf(&out))
	if again.String() != cli.String() {
		t.Fatalf("through a server:\n%s\nlocally:\n%s", again.String(), cli.String())
	}
}

// indexedDataDir indexes the sample history into a new data directory that
// the commands use (DEJA_DATA_DIR), with the built-in embedder.
func indexedDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/sample/" + aider.HistoryFileName)
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(dir, "shop")
	os.MkdirAll(project, 0o755)
	if err := os.WriteFile(filepath.Join(project, aider.HistoryFileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("DEJA_DATA_DIR", filepath.Join(dir, "data"))
	t.Setenv("DEJA_EMBED_PROVIDER", "builtin")
	t.Setenv("DEJA_TOKEN", "")
	deja(t, context.Background(), nil, "index", project)
	return filepath.Join(dir, "data")
}

// deja runs one command in-process and returns its stdout and stderr.
func deja(t *testing.T, ctx context.Context, in io.Reader, args ...string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if in == nil {
		in = strings.NewReader("")
	}
	root := newRootCmd(&IO{In: in, Out: &out, Err: &errb})
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		t.Fatalf("deja %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String()
}

// TestShowAndSessionsToolsMatchTheCommands holds the show and sessions
// tools to what 'deja show' and 'deja sessions --json' print.
func TestShowAndSessionsToolsMatchTheCommands(t *testing.T) {
	ctx := context.Background()
	dataDir := indexedDataDir(t)
	w, err := memory.OpenWarm(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m := &serve.Memory{Store: w, Mode: memory.Hybrid, Limit: 5}

	list, _ := deja(t, ctx, nil, "sessions", "--json")
	got, err := m.Sessions(ctx, serve.SessionsRequest{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if js := indentJSON(t, got); js != list {
		t.Errorf("sessions tool:\n%s\ndeja sessions --json:\n%s", js, list)
	}
	for _, ref := range []string{"20260714T101231", "20260714T101231/1"} {
		md, _ := deja(t, ctx, nil, "show", ref)
		js, _ := deja(t, ctx, nil, "show", "--json", ref)
		show, err := m.Show(ctx, serve.ShowRequest{Session: ref})
		if err != nil {
			t.Fatal(err)
		}
		if show.Markdown() != md {
			t.Errorf("show tool %s:\n%s\ndeja show:\n%s", ref, show.Markdown(), md)
		}
		if indentJSON(t, show) != js {
			t.Errorf("show tool %s:\n%s\ndeja show --json:\n%s", ref, indentJSON(t, show), js)
		}
	}
}

func indentJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + "\n"
}

// TestMCPCommandOverStdio drives 'deja mcp' through pipes with the SDK's
// client, as an agent that started it would.
func TestMCPCommandOverStdio(t *testing.T) {
	indexedDataDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	var errb bytes.Buffer
	go func() {
		root := newRootCmd(&IO{In: serverIn, Out: serverOut, Err: &errb})
		root.SetArgs([]string{"mcp"})
		done <- root.ExecuteContext(ctx)
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "make the docker image smaller", "limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("recall: %v %+v", err, res)
	}
	data, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(data), `"user":"The Docker image is 1.2 GB`) {
		t.Errorf("recall through deja mcp: %s", data)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"limit": 1}})
	if err != nil || !res.IsError {
		t.Errorf("recall without a query: %v, isError %v; want an MCP error", err, res != nil && res.IsError)
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("deja mcp ended with %v", err)
	}
	if !strings.Contains(errb.String(), "builtin:glove-100d") {
		t.Errorf("deja mcp did not say which embedder answers on stderr: %q", errb.String())
	}
}

var tookMS = regexp.MustCompile(`"took_ms": \d+`)

// TestRecallAnswersThroughARunningServer starts a server for the data
// directory as 'deja serve' does, and expects 'deja recall --json' to
// answer through it with the JSON it prints alone; then stops it, leaving
// a stale serve.json, and expects recall to answer by itself.
func TestRecallAnswersThroughARunningServer(t *testing.T) {
	dataDir := indexedDataDir(t)
	ctx := context.Background()
	args := []string{"recall", "--json", "--since", "2026-07-01", "--project", filepath.Join(filepath.Dir(dataDir), "shop"), "one customer sees another account's orders"}

	local, localErr := deja(t, ctx, nil, args...)
	if strings.Contains(localErr, "deja serve") {
		t.Fatalf("recall went through a server before one ran: %s", localErr)
	}

	served, stop := startServer(t, dataDir, "")
	got, gotErr := deja(t, ctx, nil, args...)
	if !strings.Contains(gotErr, "recalled through deja serve at "+served.URL) {
		t.Errorf("recall did not go through the server: stderr %q", gotErr)
	}
	if a, b := tookMS.ReplaceAllString(got, ""), tookMS.ReplaceAllString(local, ""); a != b {
		t.Errorf("through the server:\n%s\nlocally:\n%s", got, local)
	}
	text, _ := deja(t, ctx, nil, "recall", "make the docker image smaller")
	if !strings.HasPrefix(text, "1. aider-") || !strings.Contains(text, "The Docker image is 1.2 GB") {
		t.Errorf("text recall through the server:\n%s", text)
	}
	stop()

	// A killed server leaves its file behind; recall must not care.
	if err := serve.WriteInfo(dataDir, served); err != nil {
		t.Fatal(err)
	}
	// It is told from a slow server by the refused connection, not by a
	// clock: nothing is said, and nothing waited for.
	again, againErr := deja(t, ctx, nil, args...)
	if strings.Contains(againErr, "deja serve") || strings.Contains(againErr, "did not answer") || tookMS.ReplaceAllString(again, "") != tookMS.ReplaceAllString(local, "") {
		t.Errorf("with a stale serve.json: stderr %q\n%s", againErr, again)
	}
}

// TestRecallSessionThroughARunningServer expects --session to take a part
// of an ID through a server as it does alone, and an unknown session to
// fail alike: exit 1 with the same message.
func TestRecallSessionThroughARunningServer(t *testing.T) {
	dataDir := indexedDataDir(t)
	ctx := context.Background()
	args := []string{"recall", "--json", "--session", "20260714T101231", "one customer sees another account's orders"}
	local, _ := deja(t, ctx, nil, args...)
	if !strings.Contains(local, `"session_id": "aider-`) {
		t.Fatalf("recall --session 20260714T101231 found nothing alone:\n%s", local)
	}
	localErr := dejaFails(t, ctx, "recall", "--session", "no-such-session", "orders")

	_, stop := startServer(t, dataDir, "")
	defer stop()
	got, gotErr := deja(t, ctx, nil, args...)
	if !strings.Contains(gotErr, "recalled through deja serve") {
		t.Errorf("recall --session did not go through the server: stderr %q", gotErr)
	}
	if a, b := tookMS.ReplaceAllString(got, ""), tookMS.ReplaceAllString(local, ""); a != b {
		t.Errorf("recall --session 20260714T101231 through the server:\n%s\nalone:\n%s", got, local)
	}
	if servedErr := dejaFails(t, ctx, "recall", "--session", "no-such-session", "orders"); servedErr != localErr {
		t.Errorf("unknown session through the server: %v; alone: %v", servedErr, localErr)
	}
}

// dejaFails runs one command in-process, expects it to end with exit code
// 1, and returns its message.
func dejaFails(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	root := newRootCmd(&IO{In: strings.NewReader(""), Out: &out, Err: io.Discard})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	var ex exitError
	if !errors.As(err, &ex) || ex.code != 1 || ex.msg == "" {
		t.Fatalf("deja %s = %v (stdout %q), want exit 1 with a message", strings.Join(args, " "), err, out.String())
	}
	return ex.msg
}

func TestRecallWithTokenNeedsDEJA_TOKEN(t *testing.T) {
	dataDir := indexedDataDir(t)
	ctx := context.Background()
	_, stop := startServer(t, dataDir, "tok-123")
	defer stop()
	_, stderr := deja(t, ctx, nil, "recall", "docker image")
	if strings.Contains(stderr, "deja serve") {
		t.Errorf("recall without DEJA_TOKEN went through a server that needs one: %q", stderr)
	}
	t.Setenv("DEJA_TOKEN", "tok-123")
	_, stderr = deja(t, ctx, nil, "recall", "docker image")
	if !strings.Contains(stderr, "recalled through deja serve") {
		t.Errorf("recall with DEJA_TOKEN did not go through the server: %q", stderr)
	}
}

// startServer serves dataDir on a free loopback port as 'deja serve' does
// and returns its serve.json and a function that stops it.
func startServer(t *testing.T, dataDir, token string) (serve.Info, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var out, errb bytes.Buffer
	go func() {
		root := newRootCmd(&IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		root.SetArgs([]string{"serve", "--addr", "127.0.0.1:0", "--token", token})
		done <- root.ExecuteContext(ctx)
	}()
	// Wait for serve.json or for the server to end, whichever comes: a
	// deadline here failed the test on a machine slow enough to take it
	// (the test binary's -timeout still bounds a server that hangs).
	for {
		select {
		case err := <-done:
			t.Fatalf("deja serve ended before it announced itself: %v\n%s%s", err, out.String(), errb.String())
		default:
		}
		info, err := serve.ReadInfo(dataDir)
		if err == nil {
			return info, func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("deja serve: %v", err)
				}
				if _, err := serve.ReadInfo(dataDir); !os.IsNotExist(err) {
					t.Errorf("serve.json outlived the server: %v", err)
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServeRefusesOtherAddressesWithoutAToken(t *testing.T) {
	indexedDataDir(t)
	root := newRootCmd(&IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	root.SetArgs([]string{"serve", "--addr", "0.0.0.0:0"})
	err := root.Execute()
	if err == nil || !strings.Contains(err.Error(), "--token or DEJA_TOKEN") {
		t.Fatalf("deja serve --addr 0.0.0.0:0 = %v, want a refusal that says how", err)
	}
}
