package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/redact/redacttest"
	"github.com/deja-dev/deja/memory/store"
)

// Issue 27, item 3: a secret in a session's project (a Claude Code cwd)
// or in a team member's project, name, machine, files and commands is in
// no answer of the MCP tools or the HTTP endpoints.
func TestNoAnswerHoldsASecretOfASideField(t *testing.T) {
	var shapes []redacttest.Shape
	for i, c := range redacttest.FieldShapes() {
		if i%25 == 0 && !strings.ContainsAny(c.Text, "\n\r\t") {
			shapes = append(shapes, c)
		}
	}
	ctx := context.Background()
	dir := t.TempDir()
	var paths []string
	var remote []store.RemoteTurn
	for i, c := range shapes {
		sid := fmt.Sprintf("5a5a5a5a-1111-4222-8333-%012d", i)
		line, err := json.Marshal(map[string]any{"type": "user", "uuid": "u1", "sessionId": sid, "cwd": "/srv/shop " + c.Text,
			"timestamp": "2026-07-20T10:00:00.000Z", "message": map[string]any{"role": "user", "content": "rotate the signing keys"}})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, sid+".jsonl")
		if err := os.WriteFile(p, append(line, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		remote = append(remote, store.RemoteTurn{SharedTurn: store.SharedTurn{
			Session: fmt.Sprintf("claude-team-%d", i), Project: "/srv/team " + c.Text, Harness: "claude", Hash: "h", Line: 1,
			User: "rotate the signing keys " + c.Text, Assist: c.Text, Files: []string{"keys/" + c.Text}, Commands: []string{"make " + c.Text},
		}, Origin: "laptop " + c.Text, Person: "bob " + c.Text, Subject: "deja.core.x", Seq: 1})
	}
	dataDir := filepath.Join(dir, "data")
	s, err := store.Open(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := index.Index(ctx, s, index.Options{Paths: paths, Harnesses: harness.Registry{claude.Reader{}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportTurns(ctx, remote, store.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	w, err := recall.OpenWarm(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m := &Memory{Store: w, Mode: recall.Keyword, Limit: 100}
	cs := connectPipes(t, m)

	var answers strings.Builder
	answer := func(what string, res any) {
		t.Helper()
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&answers, "%s: %s\n", what, data)
	}
	var r RecallOutput
	answer("recall", call(t, cs, "recall", map[string]any{"query": "rotate the signing keys", "limit": 100}, &r))
	if len(r.Results) != 2*len(shapes) {
		t.Fatalf("recall found %d turns, want %d: the test does not reach them all", len(r.Results), 2*len(shapes))
	}
	answer("related", call(t, cs, "related", map[string]any{"task": "rotate the signing keys"}, nil))
	var sess SessionsOutput
	answer("sessions", call(t, cs, "sessions", map[string]any{}, &sess))
	for _, si := range sess.Sessions {
		answer("show "+si.ID, call(t, cs, "show", map[string]any{"session": si.ID}, nil))
	}
	ts := httptest.NewServer(NewHandler(m, NewMCPServer(m, "test"), ""))
	defer ts.Close()
	for path, body := range map[string]string{ShowPath: `{"session":"claude-team-0"}`, RecallPath: `{"query":"rotate the signing keys","limit":100}`} {
		data := postOK(t, ts.URL+path, body)
		fmt.Fprintf(&answers, "%s: %s\n", path, data)
	}
	all := answers.String()
	for _, c := range shapes {
		for _, v := range c.Values {
			if k := strings.Index(all, v); k >= 0 {
				t.Errorf("%s (%s): %q is answered: %q", c.Name, c.Family, v, all[max(0, k-80):min(len(all), k+len(v)+20)])
				break
			}
		}
	}
}
