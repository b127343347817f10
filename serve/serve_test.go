package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
)

// fixture indexes the sample history (testdata/sample) into a new data
// directory with the built-in embedder and returns the memory a server
// answers from and the history's path.
func fixture(t testing.TB) (*Memory, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	project := filepath.Join(dir, "shop")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../testdata/sample/" + aider.HistoryFileName)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(project, aider.HistoryFileName)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if path, err = userfile.ResolvePath(path); err != nil {
		t.Fatal(err)
	}
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(dir, "data")
	idx(t, dataDir, emb, path)
	w, err := recall.OpenWarm(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &Memory{Store: w, Embedder: emb, Mode: recall.Hybrid, Limit: 5}, path
}

// index runs an index through its own store, as a 'deja index' process.
func idx(t testing.TB, dataDir string, emb embed.Embedder, path string) {
	t.Helper()
	s, err := store.Open(context.Background(), dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := index.Index(context.Background(), s, index.Options{Paths: []string{path}, Embedder: emb, Budget: 2000})
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("index: %v %v", err, rep.Problems)
	}
}

const laterSession = `
# aider chat started at 2026-07-20 11:00:00

#### Add rate limiting to the login endpoint  

I added a token bucket limiter in middleware/ratelimit.go and wired it into the login route.

> Applied edit to middleware/ratelimit.go  
`

func appendHistory(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// connectPipes runs the MCP server over a pair of pipes, as 'deja mcp'
// runs over stdin and stdout, and connects the SDK's client to it.
func connectPipes(t *testing.T, m *Memory) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- NewMCPServer(m, "test").Run(ctx, &mcp.IOTransport{Reader: serverIn, Writer: serverOut})
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", tool, data, err)
		}
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPToolsOverStdioPipes(t *testing.T) {
	m, _ := fixture(t)
	cs := connectPipes(t, m)
	exerciseTools(t, cs)
}

// exerciseTools is what an agent does: list the tools, recall by meaning,
// open the turn it found, list the sessions, and make mistakes.
func exerciseTools(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		tools[tool.Name] = tool
	}
	for _, name := range []string{"recall", "show", "sessions", "related"} {
		tool := tools[name]
		if tool == nil || tool.InputSchema == nil || tool.OutputSchema == nil || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Fatalf("tool %s = %+v, want it listed read-only with input and output schemas", name, tool)
		}
	}
	schema, _ := json.Marshal(tools["recall"].InputSchema)
	if !strings.Contains(string(schema), `"required":["query"]`) {
		t.Errorf("recall input schema %s does not require query", schema)
	}

	var r RecallOutput
	res := call(t, cs, "recall", map[string]any{"query": "one customer can see another account's orders", "limit": 2}, &r)
	if res.IsError || len(r.Results) == 0 || len(r.Results) > 2 {
		t.Fatalf("recall: error %v, %d results (%s)", res.IsError, len(r.Results), text(res))
	}
	first := r.Results[0]
	if !strings.HasSuffix(first.SessionID, "-20260714T101231") || !strings.Contains(first.User, "Customers are seeing orders") {
		t.Errorf("recall found %s turn %d %q first, want the tenant leak", first.SessionID, first.Turn, first.User)
	}
	if r.RealizedMode != "hybrid" || r.Embedder != embed.BuiltinIdentity || first.Started == nil {
		t.Errorf("recall output %+v lacks the --json fields", r)
	}
	if txt := text(res); !strings.Contains(txt, "1. "+first.SessionID) || !strings.Contains(txt, "you: Customers are seeing orders") {
		t.Errorf("recall text does not name the first turn:\n%s", txt)
	}

	// A part of a session's ID scopes recall as it does 'deja recall --session'.
	var scoped RecallOutput
	res = call(t, cs, "recall", map[string]any{"query": "one customer can see another account's orders", "session": "20260714T101231"}, &scoped)
	if res.IsError || len(scoped.Results) == 0 {
		t.Fatalf("recall in session 20260714T101231: error %v, %d results (%s)", res.IsError, len(scoped.Results), text(res))
	}
	for _, h := range scoped.Results {
		if h.SessionID != first.SessionID {
			t.Errorf("recall in session 20260714T101231 found a turn of %s", h.SessionID)
		}
	}

	// A filter that excludes every match says so.
	var late RecallOutput
	res = call(t, cs, "recall", map[string]any{"query": "one customer can see another account's orders", "since": "2027-01-01"}, &late)
	if res.IsError || len(late.Results) != 0 || !strings.Contains(late.Note, "match, none since 2027-01-01") {
		t.Errorf("recall since 2027-01-01: note %q, %d results", late.Note, len(late.Results))
	}

	var show ShowPage
	ref := first.SessionID + "/" + itoa(first.Turn)
	res = call(t, cs, "show", map[string]any{"session": ref}, &show)
	if res.IsError || len(show.Shown) != 1 || show.Shown[0].Turn != first.Turn {
		t.Fatalf("show %s: %s", ref, text(res))
	}
	if md := text(res); !strings.HasPrefix(md, "# "+first.SessionID+"\n") || !strings.Contains(md, "WithTenant") {
		t.Errorf("show is not the turn's Markdown:\n%s", md)
	}
	res = call(t, cs, "show", map[string]any{"session": "20260714T101231"}, &show)
	if res.IsError || len(show.Shown) < 3 {
		t.Errorf("show of a whole session by a part of its ID: %s", text(res))
	}

	var sessions SessionsOutput
	res = call(t, cs, "sessions", map[string]any{"limit": 1}, &sessions)
	if res.IsError || len(sessions.Sessions) != 1 || sessions.Sessions[0].Turns == 0 {
		t.Errorf("sessions limit 1: %s", text(res))
	}
	res = call(t, cs, "sessions", map[string]any{"project": filepath.Dir(first.History)}, &sessions)
	if res.IsError || len(sessions.Sessions) < 2 {
		t.Errorf("sessions of the project: %s", text(res))
	}

	bad := []struct {
		tool string
		args map[string]any
		says string
	}{
		{"recall", map[string]any{}, "query"},
		{"recall", map[string]any{"query": "  "}, "query is empty"},
		{"recall", map[string]any{"query": "x", "mode": "fuzzy"}, "hybrid, semantic or keyword"},
		{"recall", map[string]any{"query": "x", "limit": "many"}, "limit"},
		{"recall", map[string]any{"query": "x", "limit": -1}, "positive"},
		{"recall", map[string]any{"query": "x", "since": "last tuesday"}, "not a time"},
		{"recall", map[string]any{"query": "x", "colour": "red"}, "colour"},
		{"recall", map[string]any{"query": "x", "session": "no-such-session"}, "no such session"},
		{"recall", map[string]any{"query": "x", "project": "/no/such/shop"}, "the closest indexed projects are"},
		{"recall", map[string]any{"query": "x", "since": "2026-07-20", "until": "2026-07-01"}, "not before until"},
		{"show", map[string]any{"session": first.SessionID + "/first"}, `or "before"`},
		{"show", map[string]any{"session": "no-such-session"}, "no such session"},
		{"show", map[string]any{"session": first.SessionID + "/99"}, "no turn 99"},
		{"show", map[string]any{"session": first.SessionID + "/x"}, "must be a number"},
		{"sessions", map[string]any{"limit": -3}, "positive"},
	}
	for _, b := range bad {
		res := call(t, cs, b.tool, b.args, nil)
		if !res.IsError || !strings.Contains(text(res), b.says) {
			t.Errorf("%s %v: isError %v, %q; want an error saying %q", b.tool, b.args, res.IsError, text(res), b.says)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "index", Arguments: map[string]any{}}); err == nil {
		t.Errorf("calling an unknown tool succeeded")
	}
}

func itoa(n int) string {
	data, _ := json.Marshal(n)
	return string(data)
}

// bearer adds a token to every request, as an agent configured with one.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func connectHTTP(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	hc := &http.Client{Transport: http.DefaultTransport}
	if token != "" {
		hc.Transport = bearer{token, http.DefaultTransport}
	}
	return mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + MCPPath, HTTPClient: hc, MaxRetries: -1}, nil)
}

func TestMCPToolsOverStreamableHTTP(t *testing.T) {
	m, _ := fixture(t)
	ts := httptest.NewServer(NewHandler(m, NewMCPServer(m, "test"), ""))
	defer ts.Close()
	cs, err := connectHTTP(context.Background(), ts.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	exerciseTools(t, cs)
}

func TestTokenIsRequiredWhenSet(t *testing.T) {
	m, _ := fixture(t)
	const token = "s3cret-token"
	secret, _ := NewSecret()
	ts := httptest.NewServer(WithProof(secret, NewHandler(m, NewMCPServer(m, "test"), token)))
	defer ts.Close()
	ctx := context.Background()

	for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", "Basic " + token, token} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+RecallPath, strings.NewReader(`{"query":"docker image"}`))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e errorJSON
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(e.Error, "Authorization: Bearer") {
			t.Errorf("Authorization %q: %d %q, want 401 saying how", auth, resp.StatusCode, e.Error)
		}
	}
	if _, err := connectHTTP(ctx, ts.URL, ""); err == nil {
		t.Errorf("MCP without the token connected")
	}
	if _, err := connectHTTP(ctx, ts.URL, "wrong"); err == nil {
		t.Errorf("MCP with a wrong token connected")
	}

	info := Info{URL: ts.URL, Token: true, Secret: secret}
	out, err := NewClient(info).Recall(ctx, token, RecallRequest{Query: "make the docker image smaller"})
	if err != nil || len(out.Results) == 0 || !strings.Contains(out.Results[0].User, "Docker image") {
		t.Fatalf("recall with the token: %v %+v", err, out)
	}
	cs, err := connectHTTP(ctx, ts.URL, token)
	if err != nil {
		t.Fatalf("MCP with the token: %v", err)
	}
	cs.Close()
}

func TestRecallEndpointRefusesBadRequestsAndOtherHosts(t *testing.T) {
	m, _ := fixture(t)
	ts := httptest.NewServer(NewHandler(m, NewMCPServer(m, "test"), ""))
	defer ts.Close()
	cases := []struct {
		body, host, origin string
		status             int
	}{
		{`{"query":"docker"}`, "", "", http.StatusOK},
		{`{"query":""}`, "", "", http.StatusBadRequest},
		{`{"query":"docker","mode":"fuzzy"}`, "", "", http.StatusBadRequest},
		{`{"query":`, "", "", http.StatusBadRequest},
		{`{"query":"docker","nope":1}`, "", "", http.StatusBadRequest},
		{`{"query":"docker","session":"no-such-session"}`, "", "", http.StatusNotFound},
		{`{"query":"docker","session":"20260714T101231"}`, "", "", http.StatusOK},
		{`{"query":"docker"}`, "evil.example:80", "", http.StatusForbidden},
		{`{"query":"docker"}`, "", "https://evil.example", http.StatusForbidden},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+RecallPath, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s host %q origin %q: %d, want %d", c.body, c.host, c.origin, resp.StatusCode, c.status)
		}
	}
}

func TestCheckBind(t *testing.T) {
	cases := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:7464", "", true},
		{"localhost:7464", "", true},
		{"[::1]:0", "", true},
		{"0.0.0.0:7464", "", false},
		{":7464", "", false},
		{"192.168.1.20:7464", "", false},
		{"0.0.0.0:7464", "t", true},
		{"127.0.0.1", "", false},
	}
	for _, c := range cases {
		err := CheckBind(c.addr, c.token)
		if (err == nil) != c.ok {
			t.Errorf("CheckBind(%q, %q) = %v, want ok %v", c.addr, c.token, err, c.ok)
		}
		if err != nil && c.ok == false && strings.Contains(c.addr, ":7464") && !strings.Contains(err.Error(), "--token or DEJA_TOKEN") {
			t.Errorf("CheckBind(%q) = %v: does not say how", c.addr, err)
		}
	}
}

func TestInfoFileIsPrivateAndOnlyItsServerRemovesIt(t *testing.T) {
	dir := t.TempDir()
	info := Info{URL: "http://127.0.0.1:7464", PID: 42, DataDir: dir, Token: true, Embedder: embed.BuiltinIdentity}
	if err := WriteInfo(dir, info); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, InfoFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("serve.json: %v, mode %v; want 0600", err, fi.Mode())
	}
	data, _ := os.ReadFile(filepath.Join(dir, InfoFile))
	if !strings.Contains(string(data), `"token": true`) {
		t.Errorf("serve.json = %s", data)
	}
	got, err := ReadInfo(dir)
	if err != nil || got.URL != info.URL || got.PID != 42 || !got.Token {
		t.Fatalf("ReadInfo = %+v, %v", got, err)
	}
	RemoveInfo(dir, 7)
	if _, err := ReadInfo(dir); err != nil {
		t.Fatalf("another pid removed the file: %v", err)
	}
	RemoveInfo(dir, 42)
	if _, err := ReadInfo(dir); !os.IsNotExist(err) {
		t.Fatalf("after RemoveInfo: %v, want the file gone", err)
	}
}

// TestRecallOutputPreviewsLongTurns keeps a turn of megabytes out of
// 'deja recall --json': the question and the answer are cut on a rune,
// marked with "…", and short ones are whole.
func TestRecallOutputPreviewsLongTurns(t *testing.T) {
	question := strings.Repeat("пример ", 300000) // 2 MB of two-byte runes
	answer := strings.Repeat("行", 1000000)
	r := &recall.Answer{Results: []recall.Result{
		{SessionID: "long", User: question, Assistant: answer},
		{SessionID: "short", User: "why?", Assistant: "because"},
	}}
	out := NewRecallOutput(r)
	long := out.Results[0]
	for _, c := range []struct {
		field, got, whole string
		runes             int
	}{
		{"user", long.User, question, QuestionPreview},
		{"assistant", long.Assistant, answer, AnswerPreview},
	} {
		cut, ok := strings.CutSuffix(c.got, "…")
		if !ok || !utf8.ValidString(c.got) || !strings.HasPrefix(c.whole, cut) {
			t.Errorf("%s = %.40q…, want the start of the turn cut on a rune and ending in …", c.field, c.got)
		}
		if n := utf8.RuneCountInString(cut); n > c.runes || n < c.runes-1 {
			t.Errorf("%s holds %d runes, want %d (one less when a space ends the cut)", c.field, n, c.runes)
		}
	}
	if short := out.Results[1]; short.User != "why?" || short.Assistant != "because" {
		t.Errorf("a short turn was cut: %q / %q", short.User, short.Assistant)
	}
}
