package index

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/redact/redacttest"
	"github.com/deja-dev/deja/memory/store"
)

// lineShapes is a sample of the field table's one-line secret shapes,
// every step-th, for fields a test writes many of.
func lineShapes(step int) []redacttest.Shape {
	var out []redacttest.Shape
	for i, c := range redacttest.FieldShapes() {
		if i%step == 0 && !strings.ContainsAny(c.Text, "\n\r\t\"\\") {
			out = append(out, c)
		}
	}
	return out
}

// sideHistories writes histories whose secrets are in the fields beside
// the messages: a Claude Code cwd and summary title, a Codex cwd (.jsonl
// and .jsonl.zst), an aider command and file, a Gemini CLI .project_root
// (.jsonl and .json), an OpenCode session's title and directory and an
// assistant message's cwd (JSON storage and SQLite), and lines
// a reader warns about, quoting them (a record type, a session ID of the
// wrong shape). Each session's one message says "zebracornflux" so it can
// be found.
func sideHistories(t *testing.T, dir string, shapes []redacttest.Shape) []string {
	t.Helper()
	write := func(path, data string) string { return writeFileAt(t, path, data) }
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var paths []string
	var md strings.Builder
	for i, c := range shapes {
		secret := c.Text
		cwd := "/home/u/proj " + secret
		ts := fmt.Sprintf("2026-07-20T10:%02d:%02d.000Z", i/60%60, i%60)
		claudeID := fmt.Sprintf("11111111-2222-4333-8444-%012d", i)
		paths = append(paths, write(filepath.Join(dir, "claude", claudeID+".jsonl"),
			fmt.Sprintf(`{"type":"summary","summary":%s,"leafUuid":"a%d"}`+"\n", js("title "+secret), i)+
				fmt.Sprintf(`{"type":%s,"uuid":"x%d"}`+"\n", js(secret), i)+
				fmt.Sprintf(`{"type":"user","uuid":"u%d","sessionId":%q,"cwd":%s,"timestamp":%q,"message":{"role":"user","content":"zebracornflux claude"}}`+"\n", i, claudeID, js(cwd), ts)))
		rollout := func(id string) string {
			return fmt.Sprintf(`{"timestamp":"2025-12-25T13:00:00.000Z","type":"session_meta","payload":{"id":%q,"timestamp":"2025-12-25T13:45:23.746Z","cwd":%s,"originator":"codex_cli_rs","cli_version":"0.77.0","source":"cli","model_provider":"openai"}}`+"\n", id, js(cwd)) +
				fmt.Sprintf(`{"timestamp":%q,"type":%s,"payload":{}}`+"\n", ts, js(secret)) +
				fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"user_message","message":"zebracornflux codex"}}`+"\n", ts)
		}
		codexID, zstID := fmt.Sprintf("019b55c1-d022-7061-bbb9-%012d", i), fmt.Sprintf("019b55c1-d022-7061-bbbb-%012d", i)
		zst := enc.EncodeAll([]byte(rollout(zstID)), nil)
		paths = append(paths, write(filepath.Join(dir, "codex", "rollout-2025-12-25T13-45-23-"+codexID+".jsonl"), rollout(codexID)),
			write(filepath.Join(dir, "codex", "rollout-2025-12-25T13-45-23-"+zstID+".jsonl.zst"), string(zst)))
		// A Codex rollout whose session ID is the secret: refused, and
		// the refusal names the ID.
		paths = append(paths, write(filepath.Join(dir, "codex", fmt.Sprintf("rollout-2025-12-25T13-45-23-bad%d.jsonl", i)),
			fmt.Sprintf(`{"timestamp":"2025-12-25T13:00:00.000Z","type":"session_meta","payload":{"id":%s,"timestamp":"2025-12-25T13:45:23.746Z","cwd":"/home/u/app"}}`+"\n", js(secret))+
				fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"user_message","message":"zebracornflux refused"}}`+"\n", ts)))
		fmt.Fprintf(&md, "\n# aider chat started at 2026-03-01 10:%02d:%02d\n\n#### zebracornflux aider  \n\nok\n\n> Running deploy %s  \n> Applied edit to src/%s  \n", i/60%60, i%60, secret, secret)
		project := filepath.Join(dir, "gemini", "tmp", fmt.Sprintf("proj%d", i))
		write(filepath.Join(project, ".project_root"), cwd+"\n")
		paths = append(paths, write(filepath.Join(project, "chats", "session-2026-05-01T10-00-1111111"+fmt.Sprint(i%10)+".jsonl"),
			fmt.Sprintf(`{"sessionId":"11111111-aaaa-4bbb-8ccc-%012d","projectHash":"bb97ae4cdb5b0dd7e32b198a7ebcb35332fca3343779f0895ffb11258627aa8f","startTime":"2026-04-24T23:16:28.708Z","lastUpdated":"2026-04-24T23:16:28.708Z","kind":"main"}`+"\n", i)+
				fmt.Sprintf(`{"id":"u%d","timestamp":%q,"type":"user","content":[{"text":"zebracornflux gemini"}]}`+"\n", i, ts)+
				fmt.Sprintf(`{"id":"x%d","timestamp":%q,"type":%s,"content":[]}`+"\n", i, ts, js(secret))),
			write(filepath.Join(project, "chats", "session-2025-09-28T10-46-3333333"+fmt.Sprint(i%10)+".json"),
				fmt.Sprintf(`{"sessionId":"33333333-cccc-4ddd-8eee-%012d","projectHash":"bb97ae4cdb5b0dd7e32b198a7ebcb35332fca3343779f0895ffb11258627aa8f","startTime":"2025-09-28T10:46:25.456Z","lastUpdated":"2025-09-28T12:22:25.235Z","messages":[{"id":"m%d","timestamp":%q,"type":"user","content":"zebracornflux gemini json"}]}`, i, i, ts)))
	}
	paths = append(paths, write(filepath.Join(dir, "aider", ".aider.chat.history.md"), md.String()))
	root := filepath.Join(dir, "opencode", "storage")
	for i, c := range shapes {
		id, u, a := fmt.Sprintf("ses_S%d", i), fmt.Sprintf("msg_%04du", i), fmt.Sprintf("msg_%04da", i)
		created := 1768650688093 + int64(i)*1000
		write(filepath.Join(root, "session", "info", id+".json"), fmt.Sprintf(`{"id":%q,"version":"0.5.28","title":%s,"directory":%s,"time":{"created":%d,"updated":%d}}`, id, js("title "+c.Text), js("/home/dev/p "+c.Text), created, created+5))
		write(filepath.Join(root, "session", "message", id, u+".json"), fmt.Sprintf(`{"id":%q,"role":"user","sessionID":%q,"time":{"created":%d}}`, u, id, created))
		write(filepath.Join(root, "session", "message", id, a+".json"), fmt.Sprintf(`{"id":%q,"role":"assistant","mode":"build","path":{"cwd":%s,"root":"/"},"time":{"created":%d,"completed":%d},"sessionID":%q}`, a, js("/home/dev/q "+c.Text), created+1, created+2, id))
		write(filepath.Join(root, "session", "part", id, u, "prt_1.json"), fmt.Sprintf(`{"id":"prt_1","type":"text","text":"zebracornflux opencode","messageID":%q,"sessionID":%q}`, u, id))
	}
	var texts []string
	for _, c := range shapes {
		texts = append(texts, c.Text)
	}
	db := openCodeDB(t, filepath.Join(dir, "opencode-db", "opencode.db"), texts, func(text string) string { return "/home/dev/r " + text })
	return append(paths, root, db)
}

// Issue 27, item 3: a secret in a field beside the messages (a project
// path, a title, a command, a file, a team member's name and machine) or
// in a line a reader warns about is in no byte of the store, of the index
// report, of the session list, of a recall or of a context digest.
func TestPrivacySideFieldsAndWarnings(t *testing.T) {
	shapes := lineShapes(9)
	ctx := context.Background()
	s, dir, rep := indexEveryReader(t, sideHistories(t, t.TempDir(), shapes))
	for _, h := range memtest.EveryReader {
		// Codex, Gemini CLI and OpenCode: a session a shape in each of
		// their two forms.
		want := len(shapes)
		if h.Name() != "claude" && h.Name() != "aider" {
			want *= 2
		}
		if list, err := digest.Sessions(ctx, s, recall.Scope{Harness: h.Name()}); err != nil || len(list) < want {
			t.Fatalf("%s: %d sessions stored (%v), want %d: the test does not reach it", h.Name(), len(list), err, want)
		}
	}
	if len(rep.Problems) < len(shapes) {
		t.Fatalf("%d problems, want one a refused rollout at least: %q", len(rep.Problems), rep.Problems)
	}
	// A team member's turns, every field of them carrying a secret.
	var remote []store.RemoteTurn
	for i, c := range shapes {
		remote = append(remote, store.RemoteTurn{
			SharedTurn: store.SharedTurn{Session: fmt.Sprintf("team-%d", i), Project: "/home/v/team " + c.Text, Harness: "claude",
				Turn: 0, Line: 1, Hash: fmt.Sprint(i), User: "zebracornflux team " + c.Text, Assist: c.Text,
				Files: []string{"src/" + c.Text}, Commands: []string{"run " + c.Text}},
			Person: "ann " + c.Text, Origin: "laptop " + c.Text, Subject: "deja.team.t.ann", Seq: 1,
		})
	}
	if got, err := s.ImportTurns(ctx, remote, store.ImportOptions{}); err != nil || got.Written != len(remote) {
		t.Fatalf("ImportTurns wrote %d of %d: %v", got.Written, len(remote), err)
	}
	// What deja shows: the report, the session list, a recall and a
	// context digest of a project, each as its JSON.
	var shown bytes.Buffer
	out := func(v any) {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		shown.Write(b)
	}
	out(rep)
	sessions, err := digest.Sessions(ctx, s, recall.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	out(sessions)
	for _, si := range sessions {
		d, err := digest.Session(ctx, s, si.ID)
		if err != nil {
			t.Fatal(err)
		}
		out(d)
	}
	for _, q := range []string{"zebracornflux", "zebracornflux team", "proj", "deploy"} {
		r, err := recall.Recall(ctx, s, recall.Options{Query: q, Mode: recall.Keyword, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		out(r)
	}
	projects := map[string]bool{}
	for _, si := range sessions {
		projects[si.Project] = true
	}
	for p := range projects {
		d, err := digest.Context(ctx, s, digest.ContextOptions{Project: p})
		if err != nil {
			t.Fatal(err)
		}
		out(d)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stored := storedBytes(t, dir)
	if n := bytes.Count(stored, []byte("zebracornflux")); n < 6*len(shapes) {
		t.Fatalf("the messages' phrase is stored %d times, want %d at least: the scan cannot see every history", n, 6*len(shapes))
	}
	for what, b := range map[string][]byte{"the store": stored, "what deja shows": shown.Bytes()} {
		for _, c := range shapes {
			for _, v := range c.Values {
				if k := bytes.Index(b, []byte(v)); k >= 0 {
					t.Errorf("%s (%s): %q is in %s: %q", c.Name, c.Family, v, what, b[max(0, k-80):min(len(b), k+len(v)+20)])
					break
				}
			}
		}
	}
}
