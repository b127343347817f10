package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const promptSession = "5eac5945-4cf4-4f5c-a46a-1f8dacb407aa"

// promptHistory is a history.jsonl as Claude Code writes it: a prompt
// with a paste held inline and one held by hash, an older line without a
// sessionId, a bare slash command, a line that is no JSON, the same
// prompt typed again, and a last line still being written.
var promptHistory = `{"display":"explain [Pasted text #1 +2 lines] please","pastedContents":{"1":{"id":1,"type":"text","content":"panic: nil map\nat main.go:12"}},"timestamp":1759000000000,"project":"/srv/shop","sessionId":"` + promptSession + `"}
{"display":"summarise [Pasted text #2 +40 lines]","pastedContents":{"2":{"id":2,"type":"text","contentHash":"ab12"}},"timestamp":1759000001000,"project":"/srv/shop","sessionId":"` + promptSession + `"}
{"display":"add a retry","pastedContents":{},"timestamp":1759000002000,"project":"/srv/old"}
{"display":"/clear","pastedContents":{},"timestamp":1759000003000,"project":"/srv/shop","sessionId":"` + promptSession + `"}
not json
{"display":"add  a retry","pastedContents":{},"timestamp":1759000004000,"project":"/srv/old"}
{"display":"half writ`

// TestParsePrompts pins what history.jsonl gives: a session of one
// prompt per line, pastes put back where the line holds them, linked to
// the line's session, dated, in its project; a slash command, a retyped
// prompt and a malformed line skipped (the last counted), and the line
// still being written left for the next read.
func TestParsePrompts(t *testing.T) {
	var r Reader
	path := "/home/u/.claude/history.jsonl"
	if err := r.Sniff(path, []byte(promptHistory)); err != nil {
		t.Fatalf("sniff: %v", err)
	}
	h := harness.ParseFile(r, []byte(promptHistory), harness.ParseOptions{Path: path})
	var texts []string
	for _, s := range h.Sessions {
		texts = append(texts, s.Messages[0].Text)
	}
	if want := []string{"explain panic: nil map\nat main.go:12 please", "summarise [Pasted text #2 +40 lines]", "add a retry"}; !slices.Equal(texts, want) {
		t.Fatalf("prompts %q, want %q", texts, want)
	}
	if want := []string{"1 line not a prompt-history line (first at line 5), skipped"}; !slices.Equal(h.Warnings, want) {
		t.Errorf("warnings %q, want %q", h.Warnings, want)
	}
	s := h.Sessions
	if s[0].Parent != SessionID(promptSession) || s[2].Parent != "" || s[2].Project != "/srv/old" || s[0].Started.UnixMilli() != 1759000000000 || !s[0].PromptOnly {
		t.Errorf("sessions %+v", s)
	}
	if s[0].Offset != 0 || s[1].Offset != s[0].End || s[2].End > int64(strings.LastIndex(promptHistory, "\n")+1) {
		t.Errorf("offsets %d-%d %d-%d %d-%d", s[0].Offset, s[0].End, s[1].Offset, s[1].End, s[2].Offset, s[2].End)
	}
	again := harness.ParseFile(r, []byte(promptHistory), harness.ParseOptions{Path: path, Reserved: func(id string) bool { return id == s[0].ID }})
	if len(again.Sessions) != 2 || again.Sessions[0].ID != s[1].ID {
		t.Errorf("a reserved prompt was read again: %+v", again.Sessions)
	}
	if r.Sniff("/home/u/.codex/history.jsonl", []byte(`{"session_id":"x","ts":1,"text":"t"}`)) == nil {
		t.Error("Codex's history.jsonl was taken for Claude Code's")
	}
}

// TestDiscoverPromptHistory finds history.jsonl beside the projects
// directory, in ~/.claude and in $CLAUDE_CONFIG_DIR, and leaves an empty
// one to no reader.
func TestDiscoverPromptHistory(t *testing.T) {
	home := t.TempDir()
	harnesstest.WriteFile(t, filepath.Join(home, ".claude", "projects", "-srv", promptSession+".jsonl"), `{"type":"user","sessionId":"`+promptSession+`"}`+"\n")
	hist := resolved(t, harnesstest.WriteFile(t, filepath.Join(home, ".claude", "history.jsonl"), promptHistory))
	d := Reader{}.Discover(harness.DiscoverOptions{Home: home})
	if len(d.Sources) != 2 || d.Sources[0].Path != hist || d.Sources[0].Reasons[0].String() != "~/.claude/history.jsonl" {
		t.Fatalf("sources %+v, want the history and the transcript", d.Sources)
	}
	moved := t.TempDir()
	hist = resolved(t, harnesstest.WriteFile(t, filepath.Join(moved, "history.jsonl"), promptHistory))
	d = Reader{}.Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("CLAUDE_CONFIG_DIR", moved)})
	if len(d.Sources) != 1 || d.Sources[0].Path != hist || d.Sources[0].Reasons[0].String() != "CLAUDE_CONFIG_DIR" {
		t.Errorf("CLAUDE_CONFIG_DIR: sources %+v", d.Sources)
	}
	d = Reader{}.Discover(harness.DiscoverOptions{Home: home, Dirs: []string{filepath.Join(moved, "projects")}})
	if len(d.Sources) != 1 || d.Sources[0].Path != hist || d.Sources[0].Reasons[0].String() != "claude.dirs" {
		t.Errorf("claude.dirs: sources %+v", d.Sources)
	}
	harnesstest.WriteFile(t, hist, "")
	d = Reader{}.Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env("CLAUDE_CONFIG_DIR", moved)})
	if len(d.Sources) != 0 {
		t.Errorf("an empty history was found: %+v", d.Sources)
	}
}

func resolved(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzParsePrompts: history.jsonl of any bytes never panics, and every
// session it gives is one prompt, never empty, of Claude Code's shape.
func FuzzParsePrompts(f *testing.F) {
	f.Add([]byte(promptHistory))
	f.Add([]byte(`{"display":"[Pasted text #1 +1 lines]","pastedContents":{"1":{"content":"x"}}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Reader
		h := harness.ParseFile(r, data, harness.ParseOptions{Path: "/h/.claude/history.jsonl"})
		for _, s := range h.Sessions {
			if len(s.Messages) != 1 || strings.TrimSpace(s.Messages[0].Text) == "" || !r.ValidID(s.ID) {
				t.Fatalf("session %+v", s)
			}
		}
	})
}

// TestPromptPasteCache pins the pastes held by hash: the text of
// paste-cache/<hash>.txt beside history.jsonl is put back in place of its
// placeholder, as the transcript holds it; a paste whose file is gone,
// over maxPaste, or named by no hash of hex digits keeps its placeholder.
func TestPromptPasteCache(t *testing.T) {
	dir := t.TempDir()
	const hash, big = "0123456789abcdef", "fedcba9876543210"
	harnesstest.WriteFile(t, filepath.Join(dir, pasteCacheDir, hash+".txt"), "GET /orders 500\nstack: db timeout")
	harnesstest.WriteFile(t, filepath.Join(dir, pasteCacheDir, big+".txt"), strings.Repeat("x", maxPaste+1))
	harnesstest.WriteFile(t, filepath.Join(dir, "..", "secret.txt"), "not a paste")
	line := func(display, hash string) string {
		return `{"display":"` + display + `","pastedContents":{"1":{"id":1,"type":"text","contentHash":"` + hash + `"}},"timestamp":1759000000000,"project":"/srv/shop","sessionId":"` + promptSession + `"}` + "\n"
	}
	path := harnesstest.WriteFile(t, filepath.Join(dir, historyName),
		line(`why [Pasted text #1 +2 lines] here?`, hash)+
			line(`gone [Pasted text #1 +9 lines]`, "aaaaaaaaaaaaaaaa")+
			line(`big [Pasted text #1 +1 lines]`, big)+
			line(`up [Pasted text #1 +1 lines]`, "../secret"))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: path})
	var texts []string
	for _, s := range h.Sessions {
		texts = append(texts, s.Messages[0].Text)
	}
	want := []string{"why GET /orders 500\nstack: db timeout here?", "gone [Pasted text #1 +9 lines]", "big [Pasted text #1 +1 lines]", "up [Pasted text #1 +1 lines]"}
	if !slices.Equal(texts, want) {
		t.Errorf("prompts %q, want %q", texts, want)
	}
}
