package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const chatHead = `{"sessionId":"s1","projectHash":"x","startTime":"2026-05-01T10:00:00Z","kind":"main"}` + "\n"

func TestDiscoverPlaces(t *testing.T) {
	home := t.TempDir()
	tmp := filepath.Join(home, ".gemini", "tmp")
	main := filepath.Join(tmp, "proj", "chats", "session-2026-05-01T10-00-aaaaaaaa.jsonl")
	sub := filepath.Join(tmp, "proj", "chats", "aaaaaaaa-0000", "bbbbbbbb-0000.jsonl")
	legacy := filepath.Join(tmp, "0123abcd", "chats", "session-2025-09-28T10-42-cccccccc.json")
	migrated := filepath.Join(tmp, "proj", "chats", "session-2025-09-01T10-00-dddddddd.json")
	for _, p := range []string{main, sub, legacy, migrated, migrated + "l"} {
		write(t, p, chatHead)
	}
	write(t, filepath.Join(tmp, "proj", "logs.json"), "[]")
	write(t, filepath.Join(tmp, "proj", "checkpoint-x.json"), "[]")

	d := Discover(harness.DiscoverOptions{Home: home})
	var got []string
	for _, s := range d.Sources {
		got = append(got, s.Path)
		if len(s.Reasons) != 1 || s.Reasons[0].String() != "~/.gemini/tmp" {
			t.Errorf("%s: reasons %v, want ~/.gemini/tmp", s.Path, s.Reasons)
		}
	}
	want := []string{legacy, sub, migrated + "l", main}
	for i := range want {
		want[i], _ = filepath.EvalSymlinks(want[i])
	}
	if len(got) != len(want) {
		t.Fatalf("sources %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("source %d = %s, want %s", i, got[i], want[i])
		}
	}
	if !d.Installed || len(d.Places) != 1 || d.Places[0].Path != tmp || !d.Places[0].Exists || d.Places[0].Why != "~/.gemini/tmp" {
		t.Errorf("installed %v places %+v", d.Installed, d.Places)
	}

	moved := t.TempDir()
	write(t, filepath.Join(moved, ".gemini", "tmp", "p", "chats", "session-x.jsonl"), chatHead)
	d = Discover(harness.DiscoverOptions{Home: home, Getenv: func(k string) string {
		if k == HomeEnv {
			return moved
		}
		return ""
	}})
	if len(d.Sources) != 1 || d.Sources[0].Reasons[0].String() != HomeEnv || d.Places[0].Why != HomeEnv {
		t.Errorf("GEMINI_CLI_HOME: sources %+v places %+v", d.Sources, d.Places)
	}

	d = Discover(harness.DiscoverOptions{Home: t.TempDir()})
	if d.Installed || len(d.Sources) != 0 || len(d.Warnings) != 0 || d.Places[0].Exists {
		t.Errorf("no Gemini CLI: %+v", d)
	}

	// Antigravity keeps ~/.gemini/antigravity: a .gemini holding only
	// that is not Gemini CLI's; one holding its settings as well is.
	agy := t.TempDir()
	write(t, filepath.Join(agy, ".gemini", "antigravity", "brain", "x", "task.md"), "t")
	if d = Discover(harness.DiscoverOptions{Home: agy}); d.Installed {
		t.Errorf("a .gemini of Antigravity's alone: installed")
	}
	write(t, filepath.Join(agy, ".gemini", "settings.json"), "{}")
	if d = Discover(harness.DiscoverOptions{Home: agy}); !d.Installed {
		t.Errorf("a .gemini with Gemini CLI's settings.json: not installed")
	}

	d = Discover(harness.DiscoverOptions{Home: home, Dirs: []string{filepath.Join(moved, ".gemini")}})
	if len(d.Sources) != 1 || d.Sources[0].Reasons[0].String() != "gemini.dirs" {
		t.Errorf("gemini.dirs: %+v", d.Sources)
	}
}

// TestProjectResolver rebuilds the TP-Tutor layout (FORMATS.md §3.1: a
// slug directory with .project_root, projects.json) and the older
// hash-named directory, whose project is found by hashing candidates.
func TestProjectResolver(t *testing.T) {
	home := t.TempDir()
	gem := filepath.Join(home, ".gemini")
	slugChat := filepath.Join(gem, "tmp", "anthonyguera", "chats", "session-a.jsonl")
	write(t, slugChat, chatHead)
	write(t, filepath.Join(gem, "tmp", "anthonyguera", ".project_root"), "/home/anthonyguera")
	if got := ProjectResolver(slugChat)("ignored"); got != "/home/anthonyguera" {
		t.Errorf(".project_root: %q", got)
	}

	write(t, filepath.Join(gem, "projects.json"), `{"projects":{"/work/app":"app","/work/other":"other"}}`)
	listed := filepath.Join(gem, "tmp", "app", "chats", "session-b.jsonl")
	write(t, listed, chatHead)
	if got := ProjectResolver(listed)(""); got != "/work/app" {
		t.Errorf("projects.json slug: %q", got)
	}

	hashed := filepath.Join(gem, "tmp", hashOf("/work/other"), "chats", "session-c.json")
	write(t, hashed, "{}")
	if got := ProjectResolver(hashed)(""); got != "/work/other" {
		t.Errorf("hash directory: %q", got)
	}
	homeHashed := filepath.Join(gem, "tmp", "unknown-slug", "chats", "session-d.jsonl")
	write(t, homeHashed, chatHead)
	if got := ProjectResolver(homeHashed)(hashOf(home)); got != home {
		t.Errorf("home by projectHash: %q, want %q", got, home)
	}
	if got := ProjectResolver(homeHashed)(hashOf("/nowhere")); got != "" {
		t.Errorf("unknown hash: %q, want none", got)
	}
	sub := filepath.Join(gem, "tmp", "anthonyguera", "chats", "parent-id", "child.jsonl")
	write(t, sub, chatHead)
	if got := ProjectResolver(sub)(""); got != "/home/anthonyguera" {
		t.Errorf("subagent chat: %q", got)
	}
}

// TestReaderParse reads a recording through the harness seam, which
// resolves the project from the files beside it.
func TestReaderParse(t *testing.T) {
	home := t.TempDir()
	chat := filepath.Join(home, ".gemini", "tmp", "p", "chats", "session-e.jsonl")
	write(t, filepath.Join(home, ".gemini", "tmp", "p", ".project_root"), "/srv/app")
	data := `{"sessionId":"e1","projectHash":"h","startTime":"2026-05-01T10:00:00Z","kind":"main"}
{"id":"g","timestamp":"2026-05-01T10:00:01Z","type":"gemini","content":"","toolCalls":[{"name":"write_file","status":"success","args":{"file_path":"/srv/app/x.go"}}]}
`
	write(t, chat, data)
	var r harness.FileReader = Reader{}
	if err := r.Sniff(chat, []byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := r.Sniff(chat, []byte(`{"type":"user","sessionId":"claude"}`)); err == nil {
		t.Error("a Claude Code line was taken for a Gemini recording")
	}
	h := r.Parse([]byte(data), harness.ParseOptions{Path: chat})
	if len(h.Sessions) != 1 || h.Sessions[0].Project != "/srv/app" || h.Sessions[0].Records[0].Value != "x.go" {
		t.Errorf("%+v", h.Sessions)
	}
}

// TestSniffReadsTheHeaderKeys: a recording is told by its header's keys,
// whatever their spacing and order, and not by the names appearing as
// values.
func TestSniffReadsTheHeaderKeys(t *testing.T) {
	path := "/home/dev/.gemini/tmp/proj/chats/session-2026-01-01T10-00-abcd1234.jsonl"
	for head, want := range map[string]bool{
		`{ "projectHash": "5dd1816", "startTime": "2026-01-01T10:00:00Z", "sessionId": "33333333-cccc-4ddd-8eee-000000000001" }` + "\n": true,
		`{"type":"note","fields":["sessionId","projectHash"]}` + "\n":                                                                   false,
	} {
		if got := (Reader{}).Sniff(path, []byte(head)) == nil; got != want {
			t.Errorf("%s: claimed %v, want %v", head, got, want)
		}
	}
}
