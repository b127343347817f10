package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
)

// manyCommands is a session whose one turn ran 3,000 commands.
func manyCommands() string {
	var b strings.Builder
	b.WriteString("\n# aider chat started at 2026-08-02 09:00:00\n\n#### run the flaky suite again  \n\nRunning it in a loop.\n\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "> Running make test-shard-%d  \n", i)
	}
	b.WriteString("\n")
	return b.String()
}

// TestAnswersBoundATurnsRecords: one Claude turn with a million Bash
// calls made an MCP recall answer 12.9 MB; every answer now lists at most
// MaxRecords of a turn's commands, counts the rest, and says so.
func TestAnswersBoundATurnsRecords(t *testing.T) {
	m, path := fixture(t)
	appendHistory(t, path, manyCommands())
	idx(t, m.Store.Dir(), m.Embedder, path)

	cs := connectPipes(t, m)
	var out RecallOutput
	res := call(t, cs, "recall", map[string]any{"query": "make test-shard-7", "mode": "keyword"}, &out)
	if len(out.Results) == 0 {
		t.Fatalf("recall found nothing: %s", text(res))
	}
	hit := out.Results[0]
	if len(hit.Commands) != MaxRecords || hit.RecordsCut != 3000-MaxRecords {
		t.Errorf("MCP recall: %d commands, records_cut %d; want %d and %d", len(hit.Commands), hit.RecordsCut, MaxRecords, 3000-MaxRecords)
	}
	want := fmt.Sprintf("(… %d more records cut: show %s lists them)", 3000-MaxRecords, TurnRef(hit.SessionID, hit.Turn))
	if txt := text(res); !strings.Contains(txt, want) || len(txt) > 16<<10 {
		t.Errorf("MCP recall text of %d bytes, want it short and saying %q", len(txt), want)
	}

	ts := httptest.NewServer(NewHandler(m, NewMCPServer(m, "test"), ""))
	defer ts.Close()
	body := post(t, ts.URL+RecallPath, `{"query":"make test-shard-7","mode":"keyword"}`)
	if len(body) > 16<<10 || !strings.Contains(body, fmt.Sprintf(`"records_cut":%d`, 3000-MaxRecords)) {
		t.Errorf("POST %s: %d bytes, want it short with records_cut: %.300s", RecallPath, len(body), body)
	}
	body = post(t, ts.URL+ShowPath, fmt.Sprintf(`{"session":%q}`, TurnRef(hit.SessionID, hit.Turn)))
	var p ShowPage
	if err := json.Unmarshal([]byte(body), &p); err != nil || len(p.Shown) != 1 {
		t.Fatalf("POST %s: %v, %.300s", ShowPath, err, body)
	}
	if s := p.Shown[0]; len(s.Commands) != MaxRecords || s.RecordsCut != 3000-MaxRecords || len(body) > 32<<10 {
		t.Errorf("POST %s: %d bytes, %d commands listed, records_cut %d", ShowPath, len(body), len(s.Commands), s.RecordsCut)
	}
}

func post(t *testing.T, url, req string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s %v", url, resp.Status, err)
	}
	return string(body)
}

// TestRecallAnswerIsBoundedInBytes: however many results are asked for
// and however long their records, an answer stays within MaxAnswerBytes
// and says how many results it left out.
func TestRecallAnswerIsBoundedInBytes(t *testing.T) {
	long := strings.Repeat("a/very/long/path/", 1000)
	var r recall.Answer
	for i := range 1000 {
		r.Results = append(r.Results, recall.Result{SessionID: fmt.Sprintf("aider-%d", i), User: strings.Repeat("q", 5000), Assistant: "a",
			Files: []string{long, long, long, long, long}, Commands: []string{long}})
	}
	out := NewRecallOutput(&r)
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > MaxAnswerBytes+64<<10 || out.ResultsCut == 0 || len(out.Results)+out.ResultsCut != 1000 {
		t.Errorf("%d bytes of JSON, %d results, %d cut; want at most about %d bytes and the rest counted", len(data), len(out.Results), out.ResultsCut, MaxAnswerBytes)
	}
	if f := out.Results[0].Files[0]; len([]rune(f)) > RecordPreview+1 || !strings.HasSuffix(f, "…") {
		t.Errorf("a %d-byte path listed as %d runes", len(long), len([]rune(f)))
	}
	if txt := out.TextFor("", r.Results[0].Started); !strings.Contains(txt, fmt.Sprintf("(… %d more results cut", out.ResultsCut)) {
		t.Errorf("text does not say results were cut: %.200s", txt[len(txt)-200:])
	}
}

// TestSessionsListWholeForThePersonBoundedForAnAgent: 'deja sessions
// --json --limit 0' lists every session however many there are, while
// the sessions tool and HTTP answer stay within MaxAnswerBytes and count
// the rest in "more".
func TestSessionsListWholeForThePersonBoundedForAnAgent(t *testing.T) {
	l := &digest.SessionList{Total: 5000}
	for i := range 5000 {
		l.Sessions = append(l.Sessions, digest.SessionInfo{ID: fmt.Sprintf("aider-%012d-20260101T000000", i),
			History: "/home/u/src/app/.aider.chat.history.md", Project: "/home/u/src/app", First: strings.Repeat("why does the tenant query leak ", 4)})
	}
	whole := NewSessionsOutput(l, false)
	if len(whole.Sessions) != 5000 || whole.More != 0 {
		t.Errorf("whole: %d sessions, %d more; want all 5000", len(whole.Sessions), whole.More)
	}
	bounded := BoundedSessionsOutput(l, false)
	data, err := json.Marshal(bounded)
	if err != nil {
		t.Fatal(err)
	}
	if len(bounded.Sessions) == 5000 || len(bounded.Sessions)+bounded.More != 5000 || len(data) > MaxAnswerBytes+64<<10 {
		t.Errorf("bounded: %d sessions, %d more, %d bytes; want a cut within about %d bytes, the rest counted", len(bounded.Sessions), bounded.More, len(data), MaxAnswerBytes)
	}
}
