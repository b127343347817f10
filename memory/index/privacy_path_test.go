package index

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/redact/redacttest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/check"
)

// pathShapes are the field table's secrets that can be a file name: one
// line, no slash, short enough for a name.
func pathShapes() []redacttest.Shape {
	var out []redacttest.Shape
	for i, c := range redacttest.FieldShapes() {
		if i%3 == 0 && len(c.Text) < 150 && !strings.ContainsAny(c.Text, "/\n\r\t\x00\"\\") {
			out = append(out, c)
		}
	}
	return out
}

// pathHistories writes, for each shape, a Claude Code transcript in a
// project folder named after a cwd holding it, the file named after it
// too, and an aider history in a folder and a file named after it; and
// one ordinary history of each. It returns the paths to index.
func pathHistories(t *testing.T, dir string, shapes []redacttest.Shape) []string {
	t.Helper()
	claude := func(path, id, cwd string) string {
		return writeFileAt(t, path,
			fmt.Sprintf(`{"type":"user","uuid":"u1","sessionId":%q,"cwd":%s,"timestamp":"2026-07-20T10:00:00.000Z","message":{"role":"user","content":"zebracornflux claude"}}`+"\n", id, js(cwd))+
				fmt.Sprintf(`{"type":"assistant","uuid":"a1","sessionId":%q,"cwd":%s,"timestamp":"2026-07-20T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"e1","name":"Edit","input":{"file_path":%s}}]}}`+"\n", id, js(cwd), js(cwd+"/main.go")))
	}
	const aider = "\n# aider chat started at 2026-03-01 10:00:00\n\n#### zebracornflux aider  \n\nok\n\n> Applied edit to main.go  \n"
	var paths []string
	for i, c := range shapes {
		cwd := "/home/u/" + c.Text + "/app"
		id := fmt.Sprintf("11111111-2222-4333-8444-%012d", i)
		folder := store.ClaudeFolder(cwd)
		if !isASCII(c.Text) {
			// Claude Code keeps no letter of a word not in ASCII: a
			// secret named in Chinese or Russian prose is a bare value
			// in the folder's name, which nothing marks as a secret.
			folder = store.ClaudeFolder("/home/u/app")
		}
		paths = append(paths,
			claude(filepath.Join(dir, "claude", "projects", folder, id+".jsonl"), id, cwd),
			claude(filepath.Join(dir, "claude", "projects", "-home-u-plain", c.Text+".jsonl"), fmt.Sprintf("11111111-2222-4333-8555-%012d", i), "/home/u/plain"),
			writeFileAt(t, filepath.Join(dir, "aider", c.Text, c.Text+".md"), aider))
	}
	return append(paths,
		claude(filepath.Join(dir, "claude", "projects", "-home-u-plain", "11111111-2222-4333-8666-000000000000.jsonl"), "11111111-2222-4333-8666-000000000000", "/home/u/plain"),
		writeFileAt(t, filepath.Join(dir, "aider", "plain", ".aider.chat.history.md"), aider))
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 128 {
			return false
		}
	}
	return true
}

// Issue 27, item 3, file paths: a secret in the path of a history (a
// Claude Code project folder named after a cwd, a file's name, an aider
// history's folder) is in no byte of the store nor of what deja shows of
// its sessions; indexing the same histories again adds nothing, and an
// ordinary path is kept as it is, for the next run to read.
func TestPrivacyHistoryPaths(t *testing.T) {
	shapes := pathShapes()
	if len(shapes) < 30 {
		t.Fatalf("%d shapes fit a file name, want 30 at least", len(shapes))
	}
	ctx := context.Background()
	paths := pathHistories(t, t.TempDir(), shapes)
	s, dir, rep := indexEveryReader(t, paths)
	if len(rep.Problems) > 0 || rep.Read != len(paths) || rep.Sessions != len(paths) {
		t.Fatalf("read %d of %d histories, %d sessions, problems %q", rep.Read, len(paths), rep.Sessions, rep.Problems)
	}
	checkOnce := func(when string) {
		t.Helper()
		var sessions, files, turns int
		if err := memtest.RawDB(t, s).QueryRow(`SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM files), (SELECT count(*) FROM turns)`).Scan(&sessions, &files, &turns); err != nil {
			t.Fatal(err)
		}
		if sessions != len(paths) || files != len(paths) || turns != len(paths) {
			t.Errorf("%s: %d sessions, %d files rows, %d turns; want %d of each", when, sessions, files, turns, len(paths))
		}
	}
	checkOnce("first run")
	again, err := Index(ctx, s, Options{Paths: paths, Harnesses: memtest.EveryReader})
	if err != nil {
		t.Fatal(err)
	}
	if again.NewTurns != 0 || again.Read != 0 || len(again.Problems) > 0 {
		t.Errorf("a second run read %d histories and added %d turns (%q), want none", again.Read, again.NewTurns, again.Problems)
	}
	checkOnce("second run")
	// One history grows: the run reads it and adds its new turn only.
	grown := paths[0]
	f, err := os.OpenFile(grown, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"type":"user","uuid":"u2","sessionId":"11111111-2222-4333-8444-000000000000","cwd":"/home/u/x","timestamp":"2026-07-20T11:00:00.000Z","message":{"role":"user","content":"zebracornflux grown"}}`+"\n")
	f.Close()
	grew, err := Index(ctx, s, Options{Paths: paths, Harnesses: memtest.EveryReader})
	if err != nil {
		t.Fatal(err)
	}
	if grew.Read != 1 || grew.NewTurns != 1 {
		t.Errorf("after one history grew, a run read %d histories and added %d turns, want 1 and 1", grew.Read, grew.NewTurns)
	}
	if problems, err := check.Check(ctx, s); err != nil || len(problems) > 0 {
		t.Errorf("the store's check after moving rows to their keyed paths: %v %q", err, problems)
	}
	known, err := s.KnownFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The histories whose path holds no secret are known by their path,
	// for the next run to read; the others are found again when named.
	plain := paths[len(paths)-2:]
	if !slices.Contains(known, plain[0]) || !slices.Contains(known, plain[1]) || len(known) >= len(paths)-len(shapes) {
		t.Errorf("%d known files, want the ordinary paths %q among fewer than %d", len(known), plain, len(paths)-len(shapes))
	}
	for _, k := range known {
		if !slices.Contains(paths, k) {
			t.Errorf("known file %q is no path indexed", k)
		}
	}
	var shown bytes.Buffer
	out := func(v any) {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		shown.Write(b)
	}
	out(known)
	sessions, err := digest.Sessions(ctx, s, recall.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	out(sessions)
	r, err := recall.Recall(ctx, s, recall.Options{Query: "zebracornflux", Mode: recall.Keyword, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) == 0 {
		t.Fatal("recall found no turn: it cannot show what an answer holds")
	}
	out(r)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stored := storedBytes(t, dir)
	if !bytes.Contains(stored, []byte(plain[0])) || !bytes.Contains(shown.Bytes(), []byte(plain[0])) {
		t.Errorf("the ordinary path %s is not kept and shown as it is", plain[0])
	}
	for what, b := range map[string][]byte{"the store": stored, "what deja shows": shown.Bytes()} {
		for _, c := range shapes {
			for _, v := range c.Values {
				k := bytes.Index(b, []byte(v))
				if k < 0 {
					// As Claude Code writes it in a folder's name.
					v = store.ClaudeFolder(v)
					k = bytes.Index(b, []byte(v))
				}
				if k >= 0 {
					t.Errorf("%s (%s): %q is in %s: %q", c.Name, c.Family, v, what, b[max(0, k-80):min(len(b), k+len(v)+20)])
					break
				}
			}
		}
	}
}
