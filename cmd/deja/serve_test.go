package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/serve"
)

// TestRecallOutputIsRecallJSON holds the recall tool's structured content
// and the server's answer to the layout of 'deja recall --json', and
// checks that an answer through a server prints the same JSON again.
func TestRecallOutputIsRecallJSON(t *testing.T) {
	started := time.Date(2026, 7, 14, 10, 12, 31, 0, time.FixedZone("CEST", 2*3600))
	r := &recall.Answer{
		Query: "tenant leak", Mode: recall.Hybrid, RealizedMode: recall.Keyword, FallbackReason: "no vectors",
		Embedder: "builtin:glove-100d-80k", Took: 12345 * time.Microsecond, Note: "a note",
		Results: []recall.Result{
			{SessionID: "aider-0123456789ab-20260714T101231", Turn: 2, Score: 0.0327869, Started: started,
				History: "/p/.aider.chat.history.md", Project: "/p", Line: 17, User: "why? " + strings.Repeat("é", 2500),
				Assistant: strings.Repeat("long answer ", 80), Files: []string{"a.go"}, KeywordRank: 1, SemanticRank: 3, Similarity: 0.61234},
			{SessionID: "aider-0123456789ab-20260715T000000", Turn: -1, Score: -1.5},
		},
	}
	var cli bytes.Buffer
	if err := reportRecall(&IO{Out: &cli}, r, nil, true); err != nil {
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
	reportRecall(&IO{Out: &again}, recallOf(&out), nil, true)
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
	w, err := recall.OpenWarm(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m := &serve.Memory{Store: w, Mode: recall.Hybrid, Limit: 5}

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
	// remember keeps a note the next recall finds, ahead of the turns.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{
		"text": "the docker image shrinks to 80 MB on a distroless base; token ghp_" + "R7mK2pQ9xL4vT8nW3sY6bJ1cF5hD0gA2eZ7u", "tags": []string{"docker"}}})
	if err != nil || res.IsError {
		t.Fatalf("remember: %v %+v", err, res)
	}
	data, _ = json.Marshal(res.StructuredContent)
	var kept serve.RememberOutput
	if json.Unmarshal(data, &kept) != nil || !strings.HasPrefix(kept.ID, "note-") {
		t.Fatalf("remember answered %s", data)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "distroless base image size", "limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("recall of the note: %v %+v", err, res)
	}
	data, _ = json.Marshal(res.StructuredContent)
	if !strings.Contains(string(data), `"session_id":"`+kept.ID+`"`) || strings.Contains(string(data), "R7mK2pQ9xL4vT8nW3sY6bJ1cF5hD0gA2eZ7u") {
		t.Errorf("recall after remember (the note first, its token redacted): %s", data)
	}
	if res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": "  "}}); err != nil || !res.IsError {
		t.Errorf("remember of nothing: %v, isError %v; want an MCP error", err, res != nil && res.IsError)
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("deja mcp ended with %v", err)
	}
	if !strings.Contains(errb.String(), "builtin:glove-100d-80k") {
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
	args := []string{"recall", "-v", "--json", "--since", "2026-07-01", "--project", filepath.Join(filepath.Dir(dataDir), "shop"), "one customer sees another account's orders"}
	// Harness and subagent filters travel with the request as well.
	hargs := []string{"recall", "-v", "--json", "--harness", "aider", "--include-subagents", "one customer sees another account's orders"}

	local, localErr := deja(t, ctx, nil, args...)
	if strings.Contains(localErr, "deja serve") {
		t.Fatalf("recall went through a server before one ran: %s", localErr)
	}
	hlocal, _ := deja(t, ctx, nil, hargs...)

	served, stop := startServer(t, dataDir)
	got, gotErr := deja(t, ctx, nil, args...)
	if !strings.Contains(gotErr, "recalled through deja serve at "+served.Socket) {
		t.Errorf("recall did not go through the server: stderr %q", gotErr)
	}
	if a, b := tookMS.ReplaceAllString(got, ""), tookMS.ReplaceAllString(local, ""); a != b {
		t.Errorf("through the server:\n%s\nlocally:\n%s", got, local)
	}
	hgot, hgotErr := deja(t, ctx, nil, hargs...)
	if !strings.Contains(hgotErr, "recalled through deja serve") || !strings.Contains(hlocal, `"session_id"`) {
		t.Errorf("a harness-filtered recall did not go through the server (stderr %q) or found nothing:\n%s", hgotErr, hlocal)
	}
	if a, b := tookMS.ReplaceAllString(hgot, ""), tookMS.ReplaceAllString(hlocal, ""); a != b {
		t.Errorf("filtered, through the server:\n%s\nlocally:\n%s", hgot, hlocal)
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
	// clock: nothing waited for, and no "did not answer".
	again, againErr := deja(t, ctx, nil, args...)
	if strings.Contains(againErr, "deja serve") || strings.Contains(againErr, "did not answer") || tookMS.ReplaceAllString(again, "") != tookMS.ReplaceAllString(local, "") {
		t.Errorf("with a stale serve.json: stderr %q\n%s", againErr, again)
	}
	if _, err := serve.ReadInfo(dataDir); !os.IsNotExist(err) || !strings.Contains(againErr, "removed a stale") {
		t.Errorf("the stale serve.json is still there (%v), or recall did not say it removed it: %q", err, againErr)
	}
}

// TestServedRecallSaysWhatWasCut: a recall through a running server
// printed records_cut and results_cut nowhere, as 'deja recall --json'
// laid out again a recall made of the server's already cut answer; now it
// prints the answer as the server sent it, the same as a recall without
// a server, which says what it cut.
func TestServedRecallSaysWhatWasCut(t *testing.T) {
	dir := t.TempDir()
	// Ten turns of forty files and forty commands, each a long path of
	// four-byte runes: more records than an answer lists, and more bytes
	// than one answer holds.
	long := strings.Repeat("𝄞", serve.RecordPreview)
	var h strings.Builder
	for i := range 10 {
		fmt.Fprintf(&h, "\n# aider chat started at 2026-07-%02d 09:00:00\n\n#### deploy the widget, take %d  \n\nDeployed.\n\n", 10+i, i)
		for j := range 40 {
			fmt.Fprintf(&h, "> Added src/%s/%d-%d.go to the chat.  \n> Running make deploy-%s-%d-%d  \n", long, i, j, long, i, j)
		}
	}
	project := filepath.Join(dir, "shop")
	os.MkdirAll(project, 0o755)
	if err := os.WriteFile(filepath.Join(project, aider.HistoryFileName), []byte(h.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("DEJA_DATA_DIR", filepath.Join(dir, "data"))
	t.Setenv("DEJA_EMBED_PROVIDER", "builtin")
	t.Setenv("DEJA_TOKEN", "")
	ctx := context.Background()
	deja(t, ctx, nil, "index", project)
	args := []string{"recall", "-v", "--json", "--mode", "keyword", "--limit", "10", "deploy the widget"}

	local, _ := deja(t, ctx, nil, args...)
	var out serve.RecallOutput
	if err := json.Unmarshal([]byte(local), &out); err != nil {
		t.Fatal(err)
	}
	if out.ResultsCut == 0 || len(out.Results) == 0 || out.Results[0].RecordsCut == 0 {
		t.Fatalf("the local recall cut nothing, so this test tests nothing:\n%.2000s", local)
	}
	_, stop := startServer(t, filepath.Join(dir, "data"))
	defer stop()
	got, gotErr := deja(t, ctx, nil, args...)
	if !strings.Contains(gotErr, "recalled through deja serve") {
		t.Fatalf("recall did not go through the server: stderr %q", gotErr)
	}
	if a, b := tookMS.ReplaceAllString(got, ""), tookMS.ReplaceAllString(local, ""); a != b {
		t.Errorf("through the server:\n%.3000s\nlocally:\n%.3000s", a, b)
	}
	for _, field := range []string{`"results_cut": `, `"records_cut": `} {
		if !strings.Contains(got, field) {
			t.Errorf("through the server, no %s", field)
		}
	}
	// Printed for people, the answer says the same: which turn's records
	// were cut and how to see them, and that results were left out.
	text, _ := deja(t, ctx, nil, "recall", "--mode", "keyword", "--limit", "10", "deploy the widget")
	for _, want := range []string{
		fmt.Sprintf("(… %d more files and commands cut by deja serve: 'deja show %s' lists them)", out.Results[0].RecordsCut, serve.TurnRef(out.Results[0].SessionID, out.Results[0].Turn)),
		fmt.Sprintf("(… %d more results cut by deja serve", out.ResultsCut),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("through the server, the recall printed for people does not say %q:\n%.3000s", want, text)
		}
	}
}

// TestStaleServeJSONTakeover: a server died and left serve.json; another
// process now answers at its address, TCP port or socket, and answers
// every request with a forged recall. deja recall must not send it the
// query or the token, must not print its answer, and removes the file.
func TestStaleServeJSONTakeover(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef-token"
	for _, via := range []string{"tcp", "socket"} {
		t.Run(via, func(t *testing.T) {
			dataDir := indexedDataDir(t)
			t.Setenv("DEJA_TOKEN", token)
			ctx := context.Background()
			local, _ := deja(t, ctx, nil, "recall", "--json", "make the docker image smaller")

			var ln net.Listener
			var err error
			info := serve.Info{PID: 999999, DataDir: dataDir, Embedder: "builtin:glove-100d-80k", Token: true}
			info.Secret, _ = serve.NewSecret()
			if via == "tcp" {
				ln, err = net.Listen("tcp", "127.0.0.1:0")
				info.URL = "http://" + ln.Addr().String()
			} else {
				info.Socket = filepath.Join(dataDir, serve.SocketFile)
				ln, err = net.Listen("unix", info.Socket)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var mu sync.Mutex
			var heard bytes.Buffer
			forged := `{"query":"x","mode":"hybrid","realized_mode":"hybrid","embedder":"builtin:glove-100d-80k","took_ms":1,"results":[{"session_id":"FORGED-SESSION","turn":0,"score":1,"user":"FORGED ANSWER"}],"proof":"00"}`
			go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				fmt.Fprintf(&heard, "%s %s %v %s\n", r.Method, r.URL.Path, r.Header, body)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, forged)
			}))
			if err := serve.WriteInfo(dataDir, info); err != nil {
				t.Fatal(err)
			}
			got, gotErr := deja(t, ctx, nil, "recall", "--json", "make the docker image smaller")
			text, _ := deja(t, ctx, nil, "recall", "make the docker image smaller")
			mu.Lock()
			defer mu.Unlock()
			if strings.Contains(heard.String(), "docker") || strings.Contains(heard.String(), token) {
				t.Errorf("the process at the stale address heard the query or the token:\n%s", heard.String())
			}
			if !strings.Contains(heard.String(), serve.ProofPath) {
				t.Errorf("the client did not ask for a proof first:\n%s", heard.String())
			}
			if strings.Contains(got+text, "FORGED") {
				t.Errorf("a forged answer was printed:\n%s\n%s", got, text)
			}
			if tookMS.ReplaceAllString(got, "") != tookMS.ReplaceAllString(local, "") {
				t.Errorf("recall did not answer from the store:\n%s\nwant\n%s", got, local)
			}
			if _, err := serve.ReadInfo(dataDir); !os.IsNotExist(err) || !strings.Contains(gotErr, "removed a stale") {
				t.Errorf("serve.json not removed (%v); stderr %q", err, gotErr)
			}
		})
	}
}

// TestRecallSessionThroughARunningServer expects --session to take a part
// of an ID through a server as it does alone, and an unknown session to
// fail alike: exit 1 with the same message.
func TestRecallSessionThroughARunningServer(t *testing.T) {
	dataDir := indexedDataDir(t)
	ctx := context.Background()
	args := []string{"recall", "-v", "--json", "--session", "20260714T101231", "one customer sees another account's orders"}
	local, _ := deja(t, ctx, nil, args...)
	if !strings.Contains(local, `"session_id": "aider-`) {
		t.Fatalf("recall --session 20260714T101231 found nothing alone:\n%s", local)
	}
	localErr := dejaFails(t, ctx, "recall", "--session", "no-such-session", "orders")

	_, stop := startServer(t, dataDir)
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

// TestLocalRecallNeedsNoTokenButTCPDoes: a server that also listens on
// TCP answers its owner's 'deja recall' on the socket without DEJA_TOKEN,
// while a request over TCP without the token is refused.
func TestLocalRecallNeedsNoTokenButTCPDoes(t *testing.T) {
	dataDir := indexedDataDir(t)
	ctx := context.Background()
	const token = "0123456789abcdef0123456789abcdef"
	info, stop := startServer(t, dataDir, "--addr", "127.0.0.1:0", "--token", token)
	defer stop()
	if info.Socket == "" || info.URL == "" || !info.Token {
		t.Fatalf("serve.json = %+v, want a socket and a URL that needs a token", info)
	}
	_, stderr := deja(t, ctx, nil, "recall", "-v", "docker image")
	if !strings.Contains(stderr, "recalled through deja serve at "+info.Socket) {
		t.Errorf("recall without DEJA_TOKEN did not go through the socket: %q", stderr)
	}
	tcp := info
	tcp.Socket = ""
	if _, err := serve.NewClient(tcp).Recall(ctx, "", serve.RecallRequest{Query: "docker image"}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("recall over TCP without the token: %v, want 401", err)
	}
	if out, err := serve.NewClient(tcp).Recall(ctx, token, serve.RecallRequest{Query: "docker image"}); err != nil || len(out.Results) == 0 {
		t.Errorf("recall over TCP with the token: %v", err)
	}
}

// startServer serves dataDir as 'deja serve' with args does, and returns
// its serve.json and a function that stops it.
func startServer(t *testing.T, dataDir string, args ...string) (serve.Info, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var out, errb bytes.Buffer
	go func() {
		root := newRootCmd(&IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		root.SetArgs(append([]string{"serve"}, args...))
		done <- root.ExecuteContext(ctx)
	}()
	// Wait for serve.json or for the server to end, whichever comes: a
	// deadline here failed the test on a machine slow enough to pass it
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
				if _, err := os.Lstat(filepath.Join(dataDir, serve.SocketFile)); !os.IsNotExist(err) {
					t.Errorf("serve.sock outlived the server: %v", err)
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

// TestMCPAnswersABadLineAndKeepsServing writes lines that are not JSON,
// and JSON that is no JSON-RPC message, to 'deja mcp' between real
// requests: each bad line gets a JSON-RPC error on stdout, and the
// requests around them are answered.
func TestMCPAnswersABadLineAndKeepsServing(t *testing.T) {
	indexedDataDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		root := newRootCmd(&IO{In: serverIn, Out: serverOut, Err: io.Discard})
		root.SetArgs([]string{"mcp"})
		err := root.ExecuteContext(ctx)
		serverOut.Close() // a reply awaited after the end fails, not hangs
		done <- err
	}()
	replies := bufio.NewReader(clientIn)
	exchange := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(clientOut, line+"\n"); err != nil {
			t.Fatalf("writing %q: %v", line, err)
		}
		got, err := replies.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %q: %v (deja mcp stopped)", line, err)
		}
		var m map[string]any
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("after %q, not JSON: %q", line, got)
		}
		return m
	}
	errCode := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		code, _ := e["code"].(float64)
		return code
	}
	if m := exchange("this is not json"); errCode(m) != -32700 || m["id"] != nil {
		t.Errorf("a non-JSON line: %v, want a parse error (-32700) with id null", m)
	}
	if m := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); m["result"] == nil {
		t.Fatalf("initialize after a bad line: %v", m)
	}
	io.WriteString(clientOut, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if m := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"docker`); errCode(m) != -32700 {
		t.Errorf("a cut-off line: %v, want a parse error", m)
	}
	if m := exchange(`{"id":7,"hello":"world"}`); errCode(m) != -32600 || m["id"] != float64(7) {
		t.Errorf("JSON that is no JSON-RPC message: %v, want invalid request (-32600) with id 7", m)
	}
	m := exchange(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"recall","arguments":{"query":"make the docker image smaller","limit":1}}}`)
	if data, _ := json.Marshal(m); m["id"] != float64(3) || !strings.Contains(string(data), "Docker image is 1.2 GB") {
		t.Errorf("recall after bad lines: %s", data)
	}
	clientOut.Close()
	if err := <-done; err != nil {
		t.Errorf("deja mcp ended with %v", err)
	}
}

// TestServeMakesATokenForTCP: --addr without a token makes one of 256
// bits, kept in serve.token (0600) and nowhere in serve.json; TCP
// requests need it, and it goes when the server stops.
func TestServeMakesATokenForTCP(t *testing.T) {
	dataDir := indexedDataDir(t)
	ctx := context.Background()
	info, stop := startServer(t, dataDir, "--addr", "127.0.0.1:0")
	file := filepath.Join(dataDir, serve.TokenFile)
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("serve.token: %v, mode %v; want 0600", err, fi.Mode())
	}
	data, _ := os.ReadFile(file)
	token := strings.TrimSpace(string(data))
	if len(token) < 64 {
		t.Errorf("the token made has %d characters, want 64 hex digits", len(token))
	}
	js, _ := os.ReadFile(filepath.Join(dataDir, serve.InfoFile))
	if strings.Contains(string(js), token) {
		t.Errorf("serve.json holds the token: %s", js)
	}
	tcp := info
	tcp.Socket = ""
	if _, err := serve.NewClient(tcp).Recall(ctx, "", serve.RecallRequest{Query: "docker image"}); err == nil {
		t.Errorf("recall over TCP without the made token was answered")
	}
	if out, err := serve.NewClient(tcp).Recall(ctx, token, serve.RecallRequest{Query: "docker image"}); err != nil || len(out.Results) == 0 {
		t.Errorf("recall over TCP with the made token: %v", err)
	}
	stop()
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("serve.token outlived the server: %v", err)
	}
}
