package qwen

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// layOut writes a Qwen Code folder as the CLI leaves it under root: two
// projects' chats, a subagent transcript with its sidecar and stream
// files, and the files beside them that are no chats (credentials,
// settings, todos, the prompt log).
func layOut(t *testing.T, root string) []string {
	const sid = "3f1c2a9e-5b7d-4e21-9a0c-6d8e1f2b3c4d"
	chats := []string{
		filepath.Join(root, "projects", "-home-dev-app", "chats", sid+".jsonl"),
		filepath.Join(root, "projects", "c--users-dev-shop", "chats", "7c2b9d14-0e3f-4a61-b8d5-2f9e6a1c7b03.jsonl"),
		filepath.Join(root, "projects", "-home-dev-app", "subagents", sid, "agent-explore-7f3c.jsonl"),
	}
	for _, c := range chats {
		harnesstest.WriteFile(t, c, "{}\n")
	}
	for _, other := range []string{
		"oauth_creds.json", "settings.json", "installation_id",
		"projects/-home-dev-app/subagents/" + sid + "/agent-explore-7f3c.meta.json",
		"projects/-home-dev-app/subagents/" + sid + "/agent-explore-7f3c.jsonl.stream",
		"projects/-home-dev-app/chats/notes.txt",
		"tmp/0123abcd/logs.json", "todos/" + sid + ".json", "debug/" + sid + ".txt",
	} {
		harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(other)), "{}\n")
	}
	sort.Strings(chats)
	return chats
}

// TestDiscoverHome: in a scratch home, ~/.qwen/projects yields every chat
// and subagent transcript and nothing else of ~/.qwen.
func TestDiscoverHome(t *testing.T) {
	home := t.TempDir()
	want := layOut(t, filepath.Join(home, ".qwen"))
	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, want...)
	if !d.Installed || len(d.Warnings) > 0 {
		t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
	}
	for _, s := range d.Sources {
		if len(s.Reasons) != 1 || s.Reasons[0].String() != "~/.qwen/projects" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverRuntimeDir: QWEN_RUNTIME_DIR moves the chats; those written
// to ~/.qwen before it was set are still found, each for its own place.
func TestDiscoverRuntimeDir(t *testing.T) {
	home, runtime := t.TempDir(), t.TempDir()
	old := layOut(t, filepath.Join(home, ".qwen"))
	moved := filepath.Join(runtime, "projects", "-srv-api", "chats", "e8d7c6b5-a493-4821-b0f1-2c3d4e5f6a7b.jsonl")
	harnesstest.WriteFile(t, moved, "{}\n")
	env := map[string]string{RuntimeEnv: runtime}
	d := Discover(harness.DiscoverOptions{Home: home, Getenv: func(k string) string { return env[k] }})
	harnesstest.CheckSources(t, d, append(old, moved)...)
	for _, s := range d.Sources {
		want := "~/.qwen/projects"
		if strings.HasPrefix(s.Path, want) || strings.Contains(s.Path, "-srv-api") {
			want = RuntimeEnv
		}
		if got := s.Reasons[0].String(); got != want {
			t.Errorf("%s found for %s, want %s", s.Path, got, want)
		}
	}
}

// TestDiscoverDirs: qwen.dirs replaces the default places, and takes a
// runtime folder or its projects folder.
func TestDiscoverDirs(t *testing.T) {
	home, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	layOut(t, filepath.Join(home, ".qwen"))
	inA := layOut(t, a)
	inB := layOut(t, b)
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: []string{a, filepath.Join(b, "projects")}})
	harnesstest.CheckSources(t, d, append(inA, inB...)...)
	for _, s := range d.Sources {
		if s.Reasons[0].String() != "qwen.dirs" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverNothing: a home where Qwen Code never ran has nothing and
// says it is not installed; one where it ran but left no chat is installed.
func TestDiscoverNothing(t *testing.T) {
	home := t.TempDir()
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: home}))
	harnesstest.WriteFile(t, filepath.Join(home, ".qwen", "settings.json"), "{}")
	if d := Discover(harness.DiscoverOptions{Home: home}); !d.Installed || len(d.Sources) > 0 {
		t.Errorf("home with ~/.qwen: %+v", d)
	}
}
