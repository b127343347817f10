package kimi

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const (
	cliID  = "7d3c1b2a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	oldID  = "2b9e4f1c-8a7d-4c3b-9e2f-1a0b9c8d7e6f"
	flatID = "c4e8a1f2-3b5d-4e6f-8a9b-0c1d2e3f4a5b"
	codeID = "session_5b0e2c7a-1f3d-4e6b-9a8c-2d4f6e8a0b1c"
)

// layCLI writes a kimi-cli share folder as the CLI leaves it under root: a
// session with its wire log (whose context files are not read), a
// subagent with a wire log of its own, a session from before the wire log
// with its context and a subagent's, a context file from before session
// folders, and the files beside them that are no sessions.
func layCLI(t *testing.T, root string) []string {
	bucket := filepath.Join(root, "sessions", "0c5d8f7e2b1a4c3d9e8f7a6b5c4d3e2f")
	want := []string{
		filepath.Join(bucket, cliID, "wire.jsonl"),
		filepath.Join(bucket, cliID, "subagents", "a3f9c2e17", "wire.jsonl"),
		filepath.Join(bucket, oldID, "context.jsonl"),
		filepath.Join(bucket, oldID, "context_sub_1.jsonl"),
		filepath.Join(bucket, flatID+".jsonl"),
	}
	for _, f := range want {
		harnesstest.WriteFile(t, f, "{}\n")
	}
	for _, other := range []string{
		"kimi.json", "config.toml", "credentials/kimi-code.json", "user-history/0c5d8f7e2b1a4c3d9e8f7a6b5c4d3e2f.jsonl",
		"sessions/0c5d8f7e2b1a4c3d9e8f7a6b5c4d3e2f/" + cliID + "/context.jsonl",
		"sessions/0c5d8f7e2b1a4c3d9e8f7a6b5c4d3e2f/" + cliID + "/context_sub_1.jsonl",
		"sessions/0c5d8f7e2b1a4c3d9e8f7a6b5c4d3e2f/" + cliID + "/state.json",
		"sessions/0c5d8f7e2b1a4c3d9e8f7a6b5c4d3e2f/" + cliID + "/subagents/a3f9c2e17/context.jsonl",
		"sessions/0c5d8f7e2b1a4c3d9e8f7a6b5c4d3e2f/" + cliID + "/subagents/a3f9c2e17/meta.json",
		"sessions/0c5d8f7e2b1a4c3d9e8f7a6b5c4d3e2f/" + oldID + "/state.json",
		"logs/kimi.log",
	} {
		harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(other)), "{}\n")
	}
	sort.Strings(want)
	return want
}

// layCode writes a Kimi Code home under root: a session's main agent and
// subagent wires, and the files beside them that are no sessions.
func layCode(t *testing.T, root string) []string {
	session := filepath.Join(root, "sessions", "wd_app_3f2a1b0c9d8e", codeID)
	want := []string{
		filepath.Join(session, "agents", "main", "wire.jsonl"),
		filepath.Join(session, "agents", "agent-0", "wire.jsonl"),
	}
	for _, f := range want {
		harnesstest.WriteFile(t, f, "{}\n")
	}
	for _, other := range []string{
		"config.toml", "session_index.jsonl", "credentials/kimi-code.json", "user-history/ab.jsonl",
		"sessions/wd_app_3f2a1b0c9d8e/" + codeID + "/state.json",
		"sessions/wd_app_3f2a1b0c9d8e/" + codeID + "/agents/main/plans/p1.md",
		"sessions/wd_app_3f2a1b0c9d8e/" + codeID + "/tasks/t1/output.log",
	} {
		harnesstest.WriteFile(t, filepath.Join(root, filepath.FromSlash(other)), "{}\n")
	}
	sort.Strings(want)
	return want
}

// TestDiscoverHome: in a scratch home, ~/.kimi and ~/.kimi-code yield
// every session file of both products and nothing else. Both products
// join the home directory and their folder's name on Linux, macOS and
// Windows alike (Path.home() / ".kimi"; os.homedir() + ".kimi-code"), so
// one layout stands for the three.
func TestDiscoverHome(t *testing.T) {
	home := t.TempDir()
	want := append(layCLI(t, filepath.Join(home, ".kimi")), layCode(t, filepath.Join(home, ".kimi-code"))...)
	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, want...)
	if !d.Installed || len(d.Warnings) > 0 {
		t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
	}
	for _, s := range d.Sources {
		want := "~/.kimi/sessions"
		if strings.Contains(s.Path, ".kimi-code") {
			want = "~/.kimi-code/sessions"
		}
		if len(s.Reasons) != 1 || s.Reasons[0].String() != want {
			t.Errorf("%s found for %v, want %s", s.Path, s.Reasons, want)
		}
	}
}

// TestDiscoverEnv: KIMI_SHARE_DIR and KIMI_CODE_HOME move each product's
// data; sessions written to the home folders before are still found, each
// for its own place. A relative value is taken from the working
// directory, a Windows-style one as it is.
func TestDiscoverEnv(t *testing.T) {
	home, share, work := t.TempDir(), t.TempDir(), t.TempDir()
	old := layCode(t, filepath.Join(home, ".kimi-code"))
	moved := layCLI(t, share)
	codeMoved := layCode(t, filepath.Join(work, "kimi-data"))
	env := harnesstest.Env(ShareEnv, share, HomeEnv, "kimi-data")
	d := Discover(harness.DiscoverOptions{Home: home, WorkDir: work, Getenv: env})
	harnesstest.CheckSources(t, d, append(append(old, moved...), codeMoved...)...)
	for _, s := range d.Sources {
		want := "~/.kimi-code/sessions"
		switch {
		case strings.HasPrefix(s.Path, share):
			want = ShareEnv
		case strings.HasPrefix(s.Path, work):
			want = HomeEnv
		}
		if got := s.Reasons[0].String(); got != want {
			t.Errorf("%s found for %s, want %s", s.Path, got, want)
		}
	}
}

// TestDiscoverDirs: kimi.dirs replaces the default places, and takes a
// data folder or its sessions folder.
func TestDiscoverDirs(t *testing.T) {
	home, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	layCLI(t, filepath.Join(home, ".kimi"))
	inA := layCLI(t, a)
	inB := layCode(t, b)
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: []string{a, filepath.Join(b, "sessions")}})
	harnesstest.CheckSources(t, d, append(inA, inB...)...)
	for _, s := range d.Sources {
		if s.Reasons[0].String() != "kimi.dirs" {
			t.Errorf("%s found for %v", s.Path, s.Reasons)
		}
	}
}

// TestDiscoverNothing: a home where neither product ran has nothing and
// says it is not installed; one where Kimi Code ran but left no session
// is installed.
func TestDiscoverNothing(t *testing.T) {
	home := t.TempDir()
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: home}))
	harnesstest.WriteFile(t, filepath.Join(home, ".kimi-code", "config.toml"), "")
	if d := Discover(harness.DiscoverOptions{Home: home}); !d.Installed || len(d.Sources) > 0 {
		t.Errorf("home with ~/.kimi-code: %+v", d)
	}
}
