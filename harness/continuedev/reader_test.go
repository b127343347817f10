package continuedev

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const sid = "3f0c2a9e-5b1d-4c7e-9a21-6d8e4f0b7c12"

func TestSniff(t *testing.T) {
	const (
		modern   = `{"sessionId":"` + sid + `","title":"t","workspaceDirectory":"file:///home/dev/shop","history":[`
		pretty   = "{\n  \"sessionId\": \"" + sid + "\",\n  \"title\": \"t\",\n  \"workspaceDirectory\": \"\",\n  \"history\": []\n}"
		of2024   = `{"history":[{"message":{"role":"user","content":"hi"},"contextItems":[]}],"title":"t","sessionId":"` + sid + `"}`
		gemini   = `{"sessionId":"11111111-2222-4333-8444-555555555555","projectHash":"ab12","startTime":"2026-01-01T00:00:00Z","messages":[]}`
		clineSDK = `{"version":1,"agent":"main","sessionId":"1784094124598_rruoq","messages":[]}`
		index    = `[{"sessionId":"` + sid + `","title":"t","dateCreated":"1760000000123","workspaceDirectory":""}]`
		config   = `{"models":[{"title":"x","provider":"ollama"}],"history":[]}`
	)
	file := "/home/dev/.continue/sessions/" + sid + ".json"
	for _, c := range []struct {
		path, head string
		want       bool
	}{
		{file, modern, true},
		{file, pretty, true},
		{file, "\xef\xbb\xbf" + pretty, true},
		{"/tmp/exported.json", of2024, true},
		{file, of2024[:30], true}, // a 2024 head cut inside history's first entry
		{file, gemini, false},
		{file, clineSDK, false},
		{"/home/dev/.continue/sessions/sessions.json", index, false},
		{"/home/dev/.continue/sessions/sessions.json", modern, false},
		{"/home/dev/.continue/config.json", config, false},
		{"/tmp/exported.jsonl", modern, false},
		{file, "not json", false},
		{file, `{"history":{"timeline":[]}}`, false},
	} {
		if err := (Reader{}).Sniff(c.path, []byte(c.head)); (err == nil) != c.want {
			t.Errorf("Sniff(%s, %.60q) = %v, want claimed %v", c.path, c.head, err, c.want)
		}
	}
	// Every fixture that holds a session is claimed from the head the
	// indexer reads, whatever it is named.
	var claimed []string
	for _, f := range harnesstest.Fixtures(t, 9, "*.session") {
		if !strings.Contains(f, "legacy_2023") {
			claimed = append(claimed, f)
		}
	}
	harnesstest.CheckSniffHeads(t, claimed, func(path string, head []byte) error {
		return Reader{}.Sniff(strings.TrimSuffix(path, ".session")+".json", head)
	})
}

// TestSniffRefusesOtherReadersFixtures: no JSON fixture of another
// reader is taken for a Continue session.
func TestSniffRefusesOtherReadersFixtures(t *testing.T) {
	files, _ := filepath.Glob("../*/testdata/*")
	n := 0
	for _, f := range files {
		if strings.Contains(f, "continuedev") || strings.HasSuffix(f, ".golden.json") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n++
		if (Reader{}).Sniff(strings.TrimSuffix(f, filepath.Ext(f))+".json", data[:min(len(data), harnesstest.SniffHead)]) == nil {
			t.Errorf("Sniff claims %s", f)
		}
	}
	if n < 20 {
		t.Fatalf("only %d fixtures of other readers read", n)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		IDPrefix + sid:                     true,
		IDPrefix + "agent-7f3k_2":          true,
		IDPrefix:                           false,
		IDPrefix + "a b":                   false,
		IDPrefix + "../x":                  false,
		IDPrefix + sid + "\n# SYSTEM":      false,
		IDPrefix + strings.Repeat("a", 65): false,
		"claude-" + sid:                    false,
		sid:                                false,
	} {
		if got := (Reader{}).ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestResume(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{IDPrefix + sid, "/home/dev/shop", "cd /home/dev/shop && cn --fork " + sid},
		{IDPrefix + sid, "/home/dev/my shop", "cd '/home/dev/my shop' && cn --fork " + sid},
		{IDPrefix + sid, "", "cn --fork " + sid},
		{IDPrefix + "agent-7f3k", "/srv/agent", "cd /srv/agent && cn --fork agent-7f3k"},
		{IDPrefix + "a;rm -rf ~", "/srv", ""},
		{"claude-" + sid, "/srv", ""},
	})
	if r := (Reader{}).ResumeRefusal(IDPrefix+"a;b", ""); !strings.Contains(r, "history panel") {
		t.Errorf("refusal %q does not say where Continue reopens a session", r)
	}
}

// TestStarted: a session's start is its index entry's dateCreated, else
// its file's modification time.
func TestStarted(t *testing.T) {
	dir := t.TempDir()
	listed := harnesstest.WriteFile(t, filepath.Join(dir, sid+".json"), `{}`)
	unlisted := harnesstest.WriteFile(t, filepath.Join(dir, "agent-1.json"), `{}`)
	mtime := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, p := range []string{listed, unlisted} {
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	harnesstest.WriteFile(t, filepath.Join(dir, indexFile), `[
  {"session_id": "`+sid+`", "date_created": "1600000000000"},
  {"sessionId": "other", "title": "`+sid+`", "dateCreated": "1700000000000"},
  {"sessionId": "`+sid+`", "title": "t", "dateCreated": "1760000000123", "workspaceDirectory": ""}
]`)
	if got, want := started(listed, sid), time.UnixMilli(1760000000123).UTC(); !got.Equal(want) {
		t.Errorf("listed session starts %v, want the index's %v", got, want)
	}
	if got := started(unlisted, "agent-1"); !got.Equal(mtime) {
		t.Errorf("unlisted session starts %v, want its file's time %v", got, mtime)
	}
	if got := started(filepath.Join(dir, "gone.json"), "gone"); !got.IsZero() {
		t.Errorf("a session with neither starts %v", got)
	}
	for raw, want := range map[string]time.Time{
		`[{"sessionId":"s","dateCreated":"1760000000123"}]`:            time.UnixMilli(1760000000123).UTC(),
		`[{"sessionId":"s","dateCreated":1760000000123}]`:              time.UnixMilli(1760000000123).UTC(),
		`[{"sessionId":"s","dateCreated":"2025-10-09T08:53:20.123Z"}]`: time.UnixMilli(1760000000123).UTC(),
		`[{"sessionId":"s","dateCreated":"12"}]`:                       {},
		`[{"sessionId":"s","dateCreated":"soon"}]`:                     {},
		`[{"sessionId":"t","dateCreated":"1760000000123"}]`:            {},
		`{"sessionId":"s","dateCreated":"1760000000123"}`:              {},
		`[{"sessionId":"s","dateCreated":"1760000000123"`:              time.UnixMilli(1760000000123).UTC(),
	} {
		if got := indexDate([]byte(raw), "s"); !got.Equal(want) {
			t.Errorf("indexDate(%s) = %v, want %v", raw, got, want)
		}
	}
}

func TestFilePath(t *testing.T) {
	for in, want := range map[string]string{
		"src/cart.ts":                "src/cart.ts",
		"/home/dev/shop/src/cart.ts": "/home/dev/shop/src/cart.ts",
		"file:///home/dev/shop/src/routes/%2Bpage.svelte": "/home/dev/shop/src/routes/+page.svelte",
		"file:///home/dev/100%.txt":                       "/home/dev/100%.txt",
		"file:///c%3A/Users/dev/shop/a.ts":                `C:\Users\dev\shop\a.ts`,
		"c:/Users/dev/shop/a.ts":                          `C:\Users\dev\shop\a.ts`,
		"file:///C:/Users/dev/shop":                       `C:\Users\dev\shop`,
		`file://C:\Users\dev\shop\a.ts`:                   `C:\Users\dev\shop\a.ts`,
		`C:\Users\dev\shop\a.ts`:                          `C:\Users\dev\shop\a.ts`,
		"vscode-remote://ssh-remote%2Bbox/home/ci/a.sh":   "",
		"file://server/share/a.ts":                        "",
		"":                                                "",
	} {
		if got := filePath(in); got != want {
			t.Errorf("filePath(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"file:///home/dev/shop": "/home/dev/shop",
		"/home/dev/ledger":      "/home/dev/ledger",
		`C:\work\ledger`:        `C:\work\ledger`,
		"shop":                  "",
		"untitled:Untitled-1":   "",
	} {
		if got := projectPath(in); got != want {
			t.Errorf("projectPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommandOutcome(t *testing.T) {
	exit := func(n int) *int { return &n }
	for _, c := range []struct {
		status    harness.Status
		out, line string
		want      harness.Status
		wantExit  *int
	}{
		{harness.Succeeded, "ok", "Command completed", harness.Succeeded, nil},
		{"", "ok", "Command completed", harness.Succeeded, nil},
		{harness.Succeeded, "FAIL", "Command failed with exit code 1", harness.Failed, exit(1)},
		{harness.Succeeded, "", "Command failed with: spawn ENOENT", harness.Failed, nil},
		{harness.Succeeded, "", "Command timed out", harness.Failed, nil},
		{harness.Succeeded, "", "Command is running in the background...", harness.Succeeded, nil},
		{harness.Failed, "Error executing tool Bash: Error (exit code 127): sh: foo: not found", "", harness.Failed, exit(127)},
		{harness.Succeeded, "the log says exit code 3 somewhere", "", harness.Succeeded, nil},
		{harness.Failed, "Permission denied by user", "", harness.Failed, nil},
		{"", "out", "", "", nil},
	} {
		o := commandOutcome(c.status, c.out, c.line)
		if o.Status != c.want || (o.Exit == nil) != (c.wantExit == nil) || (o.Exit != nil && *o.Exit != *c.wantExit) {
			t.Errorf("commandOutcome(%q, %q, %q) = %+v, want %q exit %v", c.status, c.out, c.line, o, c.want, c.wantExit)
		}
		if err := harness.CheckOutcome(harness.Record{Kind: harness.CommandRecord, Value: "x", Outcome: o}); err != nil {
			t.Error(err)
		}
	}
}
