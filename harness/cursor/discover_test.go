package cursor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// touch writes an empty file at p under root, and its directories.
func touch(t *testing.T, root, p string) string {
	return harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), "")
}

// found lists the sources relative to root, each with its first reason.
func found(d harness.Discovery, root string) string {
	var out []string
	for _, s := range d.Sources {
		rel, _ := filepath.Rel(root, s.Path)
		out = append(out, filepath.ToSlash(rel)+" ("+s.Reasons[0].String()+")")
	}
	return strings.Join(out, "\n")
}

// TestDiscover lays Cursor's files out in a scratch home, in every default
// place of Linux, macOS and Windows, with files that are not Cursor's
// beside them.
func TestDiscover(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{
		".config/Cursor/User/globalStorage/state.vscdb",
		".config/Cursor/User/workspaceStorage/aa/state.vscdb",
		".config/Cursor/User/workspaceStorage/aa/workspace.json",
		".config/Cursor/User/globalStorage/storage.json",
		"Library/Application Support/Cursor/User/globalStorage/state.vscdb",
		"AppData/Roaming/Cursor/User/workspaceStorage/bb/state.vscdb",
		".cursor/projects/Users-me-app/agent-transcripts/11111111-1111-4111-8111-111111111111/11111111-1111-4111-8111-111111111111.jsonl",
		".cursor/projects/Users-me-app/agent-transcripts/11111111-1111-4111-8111-111111111111/subagents/22222222-2222-4222-8222-222222222222.jsonl",
		".cursor/projects/Users-me-app/agent-transcripts/33333333-3333-4333-8333-333333333333.jsonl",
		".cursor/projects/Users-me-app/agent-transcripts/notes.jsonl",
		".cursor/projects/Users-me-app/terminals/1.txt",
		".cursor/chats/9f6abfa6c66a6abd40306ebc2591d767/44444444-4444-4444-8444-444444444444/store.db",
		".cursor/chats/not-an-md5/55555555-5555-4555-8555-555555555555/store.db",
		".cursor/chats/9f6abfa6c66a6abd40306ebc2591d767/55555555-5555-4555-8555-555555555555/store.db-wal",
	} {
		touch(t, home, p)
	}
	d := Discover(harness.DiscoverOptions{Home: home})
	want := strings.Join([]string{
		".config/Cursor/User/globalStorage/state.vscdb (~/.config/Cursor/User)",
		".config/Cursor/User/workspaceStorage/aa/state.vscdb (~/.config/Cursor/User)",
		".cursor/chats/9f6abfa6c66a6abd40306ebc2591d767/44444444-4444-4444-8444-444444444444/store.db (~/.cursor)",
		".cursor/projects/Users-me-app/agent-transcripts/11111111-1111-4111-8111-111111111111/11111111-1111-4111-8111-111111111111.jsonl (~/.cursor)",
		".cursor/projects/Users-me-app/agent-transcripts/11111111-1111-4111-8111-111111111111/subagents/22222222-2222-4222-8222-222222222222.jsonl (~/.cursor)",
		".cursor/projects/Users-me-app/agent-transcripts/33333333-3333-4333-8333-333333333333.jsonl (~/.cursor)",
		`AppData/Roaming/Cursor/User/workspaceStorage/bb/state.vscdb (~\AppData\Roaming\Cursor\User)`,
		"Library/Application Support/Cursor/User/globalStorage/state.vscdb (~/Library/Application Support/Cursor/User)",
	}, "\n")
	if got := found(d, home); got != want {
		t.Errorf("found\n%s\nwant\n%s", got, want)
	}
	if !d.Installed || len(d.Warnings) > 0 {
		t.Errorf("installed %v, warnings %v", d.Installed, d.Warnings)
	}
	for _, s := range d.Sources {
		head := []byte("SQLite format 3\x00")
		if strings.HasSuffix(s.Path, ".jsonl") {
			head = []byte(`{"role":"user"}`)
		}
		if err := (Reader{}).Sniff(s.Path, head); err != nil {
			t.Errorf("%s: %v", s.Path, err)
		}
	}
}

// TestDiscoverEnv follows XDG_CONFIG_HOME, APPDATA and CURSOR_CONFIG_DIR
// instead of the places they move, and cursor.dirs instead of all.
func TestDiscoverEnv(t *testing.T) {
	home, other := t.TempDir(), t.TempDir()
	touch(t, home, ".config/Cursor/User/globalStorage/state.vscdb")
	touch(t, home, ".cursor/projects/p/agent-transcripts/11111111-1111-4111-8111-111111111111.jsonl")
	touch(t, other, "xdg/Cursor/User/globalStorage/state.vscdb")
	touch(t, other, "appdata/Cursor/User/globalStorage/state.vscdb")
	touch(t, other, "cc/projects/p/agent-transcripts/22222222-2222-4222-8222-222222222222.jsonl")
	env := harnesstest.Env(
		"XDG_CONFIG_HOME", filepath.Join(other, "xdg"),
		"APPDATA", filepath.Join(other, "appdata"),
		"CURSOR_CONFIG_DIR", filepath.Join(other, "cc"),
	)
	d := Discover(harness.DiscoverOptions{Home: home, Getenv: env})
	want := strings.Join([]string{
		"appdata/Cursor/User/globalStorage/state.vscdb (APPDATA)",
		"cc/projects/p/agent-transcripts/22222222-2222-4222-8222-222222222222.jsonl (CURSOR_CONFIG_DIR)",
		"xdg/Cursor/User/globalStorage/state.vscdb (XDG_CONFIG_HOME)",
	}, "\n")
	if got := found(d, other); got != want {
		t.Errorf("found\n%s\nwant\n%s", got, want)
	}

	// cursor.dirs: a User directory of a VS Code-family install, and a
	// ~/.cursor copy.
	touch(t, other, "Code/User/globalStorage/state.vscdb")
	d = Discover(harness.DiscoverOptions{Home: home, Dirs: []string{filepath.Join(other, "Code", "User"), filepath.Join(other, "cc")}})
	want = strings.Join([]string{
		"Code/User/globalStorage/state.vscdb (cursor.dirs)",
		"cc/projects/p/agent-transcripts/22222222-2222-4222-8222-222222222222.jsonl (cursor.dirs)",
	}, "\n")
	if got := found(d, other); got != want {
		t.Errorf("with cursor.dirs found\n%s\nwant\n%s", got, want)
	}

	d = Discover(harness.DiscoverOptions{Home: t.TempDir()})
	if len(d.Places) == 0 {
		t.Fatal("an empty home: no place looked in")
	}
	harnesstest.CheckNoAgent(t, d)
}

// TestSniff refuses what is not Cursor's.
func TestSniff(t *testing.T) {
	for _, c := range []struct {
		path string
		head string
		ok   bool
	}{
		{"/u/globalStorage/state.vscdb", "SQLite format 3\x00", true},
		{"/u/globalStorage/state.vscdb", "not sqlite", false},
		{"/u/opencode.db", "SQLite format 3\x00", false},
		{"/c/projects/p/agent-transcripts/x/x.jsonl", `{"role":"user"}`, true},
		{"/c/projects/p/sessions/x.jsonl", `{"role":"user"}`, false},
		{"/c/projects/p/agent-transcripts/x.jsonl", `# notes`, false},
		{"/c/chats/9f6abfa6c66a6abd40306ebc2591d767/44444444-4444-4444-8444-444444444444/store.db", "SQLite format 3\x00", true},
		{"/c/chats/x/44444444-4444-4444-8444-444444444444/store.db", "SQLite format 3\x00", false},
	} {
		if err := (Reader{}).Sniff(c.path, []byte(c.head)); (err == nil) != c.ok {
			t.Errorf("Sniff(%s, %q) = %v", c.path, c.head, err)
		}
	}
}

// TestSlugProject resolves a project slug against the directories that
// exist, a '-' in a directory's name included, and leaves a bare number
// (a window with no folder) without a project.
func TestSlugProject(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "src", "my-app")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	slug := strings.ReplaceAll(strings.TrimPrefix(proj, string(filepath.Separator)), string(filepath.Separator), "-")
	path := filepath.Join(root, ".cursor", "projects", slug, transcriptsDir, "x", "x.jsonl")
	if got := slugProject(path); got != proj {
		t.Errorf("slugProject = %q, want %q", got, proj)
	}
	if got := slugProject(filepath.Join(root, ".cursor", "projects", "1778595602274", transcriptsDir, "x.jsonl")); got != "" {
		t.Errorf("a numeric slug gave %q", got)
	}
	if got := slugProject(filepath.Join(root, ".cursor", "projects", "no-such-place-here", transcriptsDir, "x.jsonl")); got != "" {
		t.Errorf("a slug of nothing here gave %q", got)
	}
}

func TestValidID(t *testing.T) {
	for id, ok := range map[string]bool{
		"cursor-11111111-1111-4111-8111-111111111111":            true,
		"cursor-transcript-11111111-1111-4111-8111-111111111111": true,
		"cursor-agent-11111111-1111-4111-8111-111111111111":      true,
		"cursor-agent-x":      false,
		"cursor-11111111":     false,
		"cursor-transcript-x": false,
		"claude-11111111-1111-4111-8111-111111111111":  false,
		"cursor-11111111-1111-4111-8111-11111111111\n": false,
	} {
		if (Reader{}).ValidID(id) != ok {
			t.Errorf("ValidID(%q) = %v", id, !ok)
		}
	}
}

func TestResume(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{IDPrefix + "11111111-1111-4111-8111-111111111111", "/p", ""},
		{transcriptPrefix + "11111111-1111-4111-8111-111111111111", "/p", ""},
		{agentPrefix + "11111111-1111-4111-8111-111111111111", "/Users/me/my app", "cd '/Users/me/my app' && cursor-agent --resume 11111111-1111-4111-8111-111111111111"},
		{agentPrefix + "11111111-1111-4111-8111-111111111111", "", ""},
	})
}

func TestParseStamp(t *testing.T) {
	for in, want := range map[string]string{
		"Wednesday, Jun 17, 2026, 8:14 PM (UTC+8)":   "2026-06-17T12:14:00Z",
		"Tuesday, May 12, 2026, 10:20 PM (UTC-5:30)": "2026-05-13T03:50:00Z",
		"Monday, Jan 5, 2026, 9:00 AM (UTC)":         "2026-01-05T09:00:00Z",
		"Monday, Jan 5, 2026, 9:00 AM":               "2026-01-05T09:00:00Z",
		"Monday, Jan 5, 2026, 9:00 AM (UTC+99)":      "2026-01-05T09:00:00Z",
		"yesterday":                                  "",
	} {
		got := ""
		if tm := parseStamp(in, nil); !tm.IsZero() {
			got = tm.Format("2006-01-02T15:04:05Z")
		}
		if in == "Monday, Jan 5, 2026, 9:00 AM" || in == "Monday, Jan 5, 2026, 9:00 AM (UTC+99)" {
			if tm := parseStamp(in, time.UTC); !tm.IsZero() {
				got = tm.Format("2006-01-02T15:04:05Z")
			}
		}
		if got != want {
			t.Errorf("parseStamp(%q) = %q, want %q", in, got, want)
		}
	}
}
