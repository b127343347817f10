package pi

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const head = `{"type":"session","version":3,"id":"5f0c1a2b-3d4e-4f60-8a7b-9c0d1e2f3a4b","timestamp":"2026-05-02T09:00:00Z","cwd":"/x"}` + "\n"

// TestDiscover lays out each agent's files in a scratch home, with the
// files beside them that are not transcripts, and checks what is found
// and why.
func TestDiscover(t *testing.T) {
	home := t.TempDir()
	piFile := filepath.Join(home, ".pi", "agent", "sessions", "--home-u-app--", "2026-05-02T09-00-00-000Z_5f0c1a2b-3d4e-4f60-8a7b-9c0d1e2f3a4b.jsonl")
	ompFile := filepath.Join(home, ".omp", "agent", "sessions", "-home-u-app", "2026-06-01T08-00-00-000Z_8c3d4e5f-6071-4c8d-ae9f-1a2b3c4d5e6f.jsonl")
	ompProfile := filepath.Join(home, ".omp", "profiles", "work", "agent", "sessions", "-home-u-app", "2026-06-02T08-00-00-000Z_9c3d4e5f-6071-4c8d-ae9f-1a2b3c4d5e6f.jsonl")
	ocFile := filepath.Join(home, ".openclaw", "agents", "main", "sessions", "10f38658-0dc1-4fd6-b8f9-8814e1a93ec8.jsonl")
	ocDev := filepath.Join(home, ".openclaw-dev", "agents", "ops", "sessions", "20f38658-0dc1-4fd6-b8f9-8814e1a93ec8.jsonl")
	for _, p := range []string{piFile, ompFile, ompProfile, ocFile, ocDev} {
		harnesstest.WriteFile(t, p, head)
	}
	sessions := filepath.Join(home, ".openclaw", "agents", "main", "sessions")
	for _, name := range []string{"sessions.json", "10f38658-0dc1-4fd6-b8f9-8814e1a93ec8.checkpoint.11111111-2222-4333-8444-555555555555.jsonl",
		"10f38658-0dc1-4fd6-b8f9-8814e1a93ec8.jsonl.reset.2026-04-20T03-20-00.000Z", "10f38658-0dc1-4fd6-b8f9-8814e1a93ec8.jsonl.bak"} {
		harnesstest.WriteFile(t, filepath.Join(sessions, name), head)
	}
	// Credentials beside the sessions are never listed.
	harnesstest.WriteFile(t, filepath.Join(home, ".openclaw", "agents", "main", "agent", "auth-profiles.json"), `{}`)
	harnesstest.WriteFile(t, filepath.Join(home, ".pi", "agent", "auth.json"), `{}`)

	d := Discover(harness.DiscoverOptions{Home: home})
	want := map[string]string{piFile: "~/.pi/agent/sessions", ompFile: "~/.omp/agent/sessions", ompProfile: "omp profile", ocFile: "~/.openclaw", ocDev: "OpenClaw profile"}
	if len(d.Sources) != len(want) || !d.Installed || len(d.Warnings) != 0 {
		t.Fatalf("sources %+v installed %v warnings %v; want %d", d.Sources, d.Installed, d.Warnings, len(want))
	}
	for _, s := range d.Sources {
		var why string
		for p, w := range want {
			if r, _ := filepath.EvalSymlinks(p); r == s.Path {
				why = w
			}
		}
		if why == "" || len(s.Reasons) != 1 || s.Reasons[0].String() != why {
			t.Errorf("%s: reasons %v, want %q", s.Path, s.Reasons, why)
		}
	}

	// The variables replace the defaults.
	moved := t.TempDir()
	movedPi := filepath.Join(moved, "pi", "sessions", "--x--", "a_5f0c1a2b-3d4e-4f60-8a7b-9c0d1e2f3a4b.jsonl")
	movedOC := filepath.Join(moved, "claw", "agents", "main", "sessions", "b.jsonl")
	xdgOmp := filepath.Join(moved, "xdg", "omp", "sessions", "-x", "c.jsonl")
	for _, p := range []string{movedPi, movedOC, xdgOmp} {
		harnesstest.WriteFile(t, p, head)
	}
	env := map[string]string{AgentDirEnv: filepath.Join(moved, "pi"), StateDirEnv: filepath.Join(moved, "claw"), XDGDataEnv: filepath.Join(moved, "xdg")}
	d = Discover(harness.DiscoverOptions{Home: home, Getenv: func(k string) string { return env[k] }})
	reasons := map[string]string{}
	for _, s := range d.Sources {
		reasons[filepath.Base(s.Path)] = s.Reasons[0].String()
	}
	for name, why := range map[string]string{filepath.Base(movedPi): AgentDirEnv, "b.jsonl": StateDirEnv, "c.jsonl": XDGDataEnv,
		filepath.Base(ompFile): "~/.omp/agent/sessions"} {
		if reasons[name] != why {
			t.Errorf("%s found by %q, want %q (all: %v)", name, reasons[name], why, reasons)
		}
	}
	if _, ok := reasons[filepath.Base(piFile)]; ok {
		t.Errorf("~/.pi read though %s moves it", AgentDirEnv)
	}
	if _, ok := reasons[filepath.Base(ocFile)]; ok {
		t.Errorf("~/.openclaw read though %s moves it", StateDirEnv)
	}

	// pi.dirs replaces everything.
	d = Discover(harness.DiscoverOptions{Home: home, Dirs: []string{filepath.Join(moved, "claw"), filepath.Join(moved, "pi")}})
	if len(d.Sources) != 2 || d.Sources[0].Reasons[0].String() != "pi.dirs" {
		t.Errorf("pi.dirs: %+v", d.Sources)
	}

	// No agent here: nothing, no warning, not installed.
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: t.TempDir()}))
}
