package copilot

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const startLine = `{"type":"session.start","data":{"sessionId":"0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60","context":{"cwd":"/srv"}},"id":"a","timestamp":"2026-06-01T09:00:00Z","parentId":null}` + "\n"

// TestDiscoverPlaces lays out a Copilot CLI directory in a scratch home as
// the CLI writes it: sessions with events.jsonl, one with only
// workspace.yaml, and the files beside session-state that are no session.
func TestDiscoverPlaces(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".copilot", "session-state")
	a := filepath.Join(state, "0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60", "events.jsonl")
	b := filepath.Join(state, "8baa78ec-b203-4c7f-b1d3-c1170ae84b7d", "events.jsonl")
	harnesstest.WriteFile(t, a, startLine)
	harnesstest.WriteFile(t, b, startLine)
	harnesstest.WriteFile(t, filepath.Join(state, "9a493a94-a307-489e-8bc7-d16f4afcd992", "workspace.yaml"), "id: 9a493a94\n")
	harnesstest.WriteFile(t, filepath.Join(state, "0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60", "session.db"), "")
	harnesstest.WriteFile(t, filepath.Join(home, ".copilot", "session-store.db"), "")
	prompts := filepath.Join(home, ".copilot", "command-history-state.json")
	harnesstest.WriteFile(t, prompts, `{"commandHistory":[]}`)

	d := Discover(harness.DiscoverOptions{Home: home})
	want := []string{prompts, a, b}
	if len(d.Sources) != len(want) {
		t.Fatalf("sources %+v, want %q", d.Sources, want)
	}
	for i, w := range want {
		w, _ = filepath.EvalSymlinks(w)
		why := "~/.copilot/session-state"
		if i == 0 {
			why = "~/.copilot/command-history-state.json"
		}
		if d.Sources[i].Path != w || d.Sources[i].Reasons[0].String() != why {
			t.Errorf("source %d = %s (%v), want %s from %s", i, d.Sources[i].Path, d.Sources[i].Reasons, w, why)
		}
	}
	if !d.Installed || len(d.Places) != 1 || d.Places[0].Path != state || !d.Places[0].Exists {
		t.Errorf("installed %v places %+v", d.Installed, d.Places)
	}

	moved := t.TempDir()
	c := filepath.Join(moved, "session-state", "07c40cd0-ff51-4d6e-bdcd-ac2f90877203", "events.jsonl")
	harnesstest.WriteFile(t, c, startLine)
	d = Discover(harness.DiscoverOptions{Home: home, Getenv: harnesstest.Env(HomeEnv, moved)})
	if len(d.Sources) != 1 || d.Sources[0].Reasons[0].String() != HomeEnv || d.Places[0].Why != HomeEnv {
		t.Errorf("COPILOT_HOME: sources %+v places %+v", d.Sources, d.Places)
	}

	d = Discover(harness.DiscoverOptions{Home: t.TempDir()})
	if len(d.Places) == 0 {
		t.Fatal("no Copilot CLI: no place looked in")
	}
	harnesstest.CheckNoAgent(t, d)

	// copilot.dirs names a Copilot directory or its session-state.
	for _, dir := range []string{moved, filepath.Join(moved, "session-state")} {
		d = Discover(harness.DiscoverOptions{Home: home, Dirs: []string{dir}})
		if len(d.Sources) != 1 || d.Sources[0].Reasons[0].String() != "copilot.dirs" {
			t.Errorf("copilot.dirs %s: %+v", dir, d.Sources)
		}
	}
}

// TestSniff: an events file is told by its first event's keys, whatever
// their order, and Claude Code and Codex lines are not taken for one.
func TestSniff(t *testing.T) {
	path := filepath.Join(fixtureState, "0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60", "events.jsonl")
	for head, want := range map[string]bool{
		startLine: true,
		`{ "parentId": null, "timestamp": "2026-06-01T09:00:00Z", "id": "a", "data": {}, "type": "session.start" }`:          true,
		`{"type":"user","sessionId":"0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60","uuid":"u","message":{"role":"user"}}`:            false,
		`{"type":"progress","data":{"type":"hook"},"uuid":"u","sessionId":"0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60"}`:           false,
		`{"timestamp":"2026-06-01T09:00:00Z","type":"session_meta","payload":{"id":"0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60"}}`: false,
		`{"type":"summary","data":{}}`: false,
	} {
		if got := (Reader{}).Sniff(path, []byte(head)) == nil; got != want {
			t.Errorf("%s: claimed %v, want %v", head, got, want)
		}
	}
	if (Reader{}).Sniff(filepath.Join(filepath.Dir(path), "workspace.yaml"), []byte(startLine)) == nil {
		t.Error("a file that is not .jsonl was claimed")
	}
}

func TestResumeCommand(t *testing.T) {
	const sid = "0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60"
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{IDPrefix + sid, "/srv/shop", "cd /srv/shop && copilot --resume " + sid},
		{IDPrefix + sid, "/srv/my shop", "cd '/srv/my shop' && copilot --resume " + sid},
		{IDPrefix + sid, "", "copilot --resume " + sid},
		// A sub-agent is not reopened on its own.
		{IDPrefix + sid + agentInfix + "toolu_x", "/srv", ""},
		{"claude-" + sid, "/srv", ""},
		{IDPrefix, "/srv", ""},
	})
}
