package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexWarnsOfDeepNesting: a Claude transcript and a Codex rollout
// each holding one line nested 100,000 deep among good lines are indexed,
// and 'deja index' says which line of each it skipped, once a kind, on
// stderr and in --json's warnings (it said nothing before).
func TestIndexWarnsOfDeepNesting(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("DEJA_EMBED_PROVIDER", "builtin")
	t.Setenv("DEJA_TOKEN", "")
	deep := strings.Repeat("[", 100_000)
	const id = "11111111-2222-4333-8444-555555555555"
	claudeLine := func(typ, uuid, content string) string {
		return `{"type":"` + typ + `","uuid":"` + uuid + `","sessionId":"` + id + `","cwd":"/srv/shop","timestamp":"2026-07-20T10:00:00.000Z","message":{"role":"` + typ + `","content":` + content + "}}\n"
	}
	codexUser := func(text string) string {
		return `{"timestamp":"2025-12-25T13:01:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"` + text + `"}}` + "\n"
	}
	files := []struct{ name, data string }{
		{id + ".jsonl", claudeLine("user", "u1", `"fix the rounding"`) +
			`{"type":"user","sessionId":"` + id + `","message":` + deep + "\n" +
			claudeLine("assistant", "u3", `[{"type":"text","text":"Fixed."}]`) +
			claudeLine("user", "u4", `"now the taxes"`)},
		{"rollout-2025-12-25T13-00-00-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl", `{"timestamp":"2025-12-25T13:00:00.000Z","type":"session_meta","payload":{"id":"019b55c1-d022-7061-bbb9-b0c90708472b","cwd":"/home/u/app"}}` + "\n" +
			codexUser("first question") +
			`{"timestamp":"2025-12-25T13:01:00.000Z","type":"event_msg","payload":` + deep + "\n" +
			codexUser("second question")},
	}
	var paths []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte(f.data), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	want := map[string]string{
		paths[0]: paths[0] + ": 1 line nested deeper than 512 levels (first at line 2), skipped",
		paths[1]: paths[1] + ": 1 line nested deeper than 512 levels (first at line 3), skipped",
	}

	t.Setenv("DEJA_DATA_DIR", filepath.Join(dir, "text"))
	out, errOut := deja(t, context.Background(), nil, append([]string{"index"}, paths...)...)
	for _, p := range paths {
		if !strings.Contains(errOut, "deja: warning: "+want[p]+"\n") {
			t.Errorf("stderr lacks %q:\n%s", want[p], errOut)
		}
	}
	if !strings.Contains(out, "4 new turns") {
		t.Errorf("stdout %q, want the 4 turns around the deep lines", out)
	}

	t.Setenv("DEJA_DATA_DIR", filepath.Join(dir, "json"))
	out, _ = deja(t, context.Background(), nil, append([]string{"index", "--json"}, paths...)...)
	var rep indexOutput
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.NewTurns != 4 || strings.Join(rep.Warnings, "\n") != want[paths[0]]+"\n"+want[paths[1]] || len(rep.Problems) != 0 {
		t.Errorf("--json: %d turns, warnings\n%s\nwant 4 and\n%s\n%s\nproblems %q, want none", rep.NewTurns, strings.Join(rep.Warnings, "\n"), want[paths[0]], want[paths[1]], rep.Problems)
	}
}
