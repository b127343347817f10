package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testEnv(t *testing.T) Env {
	home := t.TempDir()
	return Env{Home: home, ConfigDir: filepath.Join(home, ".config"), CodexHome: filepath.Join(home, ".codex"),
		Project: filepath.Join(home, "proj"), Deja: "/opt/deja/bin/deja", AiderRead: "/data/ctx.md",
		Record: filepath.Join(home, "data", RecordFile)}
}

func target(t *testing.T, env Env, agent string) Target {
	ts, err := Wiring(env, []string{agent}, What{})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

// TestApplyKeepsMode writes through a rename and keeps the file's mode
// and a backup of the old bytes; uninstall restores them.
func TestApplyKeepsMode(t *testing.T) {
	env := testEnv(t)
	ctx := context.Background()
	file := filepath.Join(env.Home, ".claude.json")
	orig := "{\n  \"a\": 1\n}\n"
	if err := os.WriteFile(file, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	tg := target(t, env, "claude-code")
	c, err := Plan(ctx, tg, false)
	if err != nil || c.Action != "add" {
		t.Fatalf("plan: %v %+v", err, c.Action)
	}
	if err := Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, %v; want 0640", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(file + BackupSuffix); string(b) != orig {
		t.Fatalf("backup %q", b)
	}
	if ok, present, err := Wired(ctx, tg); !ok || !present || err != nil {
		t.Fatalf("Wired after install: %v %v %v", ok, present, err)
	}
	other := env
	other.Deja = "/elsewhere/deja"
	if ok, present, err := Wired(ctx, target(t, other, "claude-code")); ok || !present || err != nil {
		t.Fatalf("Wired for another deja: %v %v %v", ok, present, err)
	}
	c, err = Plan(ctx, tg, true)
	if err != nil || c.Action != "remove" {
		t.Fatalf("plan uninstall: %v %v", err, c.Action)
	}
	if err := Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != orig {
		t.Fatalf("after uninstall %q", b)
	}
	if ok, present, _ := Wired(ctx, tg); ok || present {
		t.Fatal("Wired after uninstall")
	}
}

// TestApplyNewFile creates a config the agent lacks (0600, its directory
// too) and uninstall removes it again.
func TestApplyNewFile(t *testing.T) {
	env := testEnv(t)
	ctx := context.Background()
	for _, agent := range []string{"codex", "gemini", "cursor", "opencode", "aider"} {
		tg := target(t, env, agent)
		c, err := Plan(ctx, tg, false)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.Diff(), "--- /dev/null") {
			t.Errorf("%s: diff of a new file:\n%s", agent, c.Diff())
		}
		if err := Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(tg.File)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", agent, fi, err)
		}
		b, _ := os.ReadFile(tg.File)
		if !strings.Contains(string(b), env.Deja) && !strings.Contains(string(b), env.AiderRead) {
			t.Errorf("%s: wrote %q", agent, b)
		}
		if c, err = Plan(ctx, tg, true); err != nil || !c.Delete {
			t.Fatalf("%s: uninstall plan %v delete=%v new=%q", agent, err, c.Delete, c.New)
		}
		if err := Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tg.File); !os.IsNotExist(err) {
			t.Errorf("%s: file left after uninstall: %v", agent, err)
		}
	}
}

// TestPlanRefusesBadFile leaves a config that does not parse alone.
func TestPlanRefusesBadFile(t *testing.T) {
	env := testEnv(t)
	file := filepath.Join(env.Home, ".claude.json")
	if err := os.WriteFile(file, []byte("{\"a\": "), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(context.Background(), target(t, env, "claude-code"), false); err == nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("err %v", err)
	}
}
