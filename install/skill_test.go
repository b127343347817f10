package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuidanceRoundTrip adds deja's block to guidance files of every
// ending and takes it out again, byte for byte; adding twice changes
// nothing, and a block the user moved text after stays where it is.
func TestGuidanceRoundTrip(t *testing.T) {
	for _, orig := range []string{"", "# rules\n", "# rules", "a\n\n", "\n", "x\r\ny\r\n"} {
		in, err := guidanceAdd([]byte(orig))
		if err != nil {
			t.Fatalf("%q: %v", orig, err)
		}
		if !strings.Contains(string(in), guidanceEnd) || !strings.HasPrefix(string(in), orig) {
			t.Errorf("%q: block not appended:\n%s", orig, in)
		}
		again, _ := guidanceAdd(in)
		if string(again) != string(in) {
			t.Errorf("%q: a second add changed the file:\n%s", orig, again)
		}
		out, err := guidanceRemove(in)
		if err != nil || string(out) != orig {
			t.Errorf("%q: removed to %q (%v)", orig, out, err)
		}
	}
	moved := "<!-- deja:begin (added by 'deja install --guidance'; 'deja install --guidance --uninstall' removes it) -->\n" +
		guidanceBody + "\n" + guidanceEnd + "\nmine after\n"
	if out, _ := guidanceAdd([]byte(moved)); string(out) != moved {
		t.Errorf("a block with text after it moved:\n%s", out)
	}
	if out, _ := guidanceRemove([]byte(moved)); string(out) != "mine after\n" {
		t.Errorf("remove left %q", out)
	}
	if _, err := guidanceRemove([]byte(guidanceBegin + "\nno end")); err == nil {
		t.Error("a block without its end mark was removed")
	}
}

// TestSkillLeavesTheUsersOwn: a SKILL.md deja did not write is neither
// replaced nor removed; deja's own is written whole and removed whole.
func TestSkillLeavesTheUsersOwn(t *testing.T) {
	env := testEnv(t)
	sk := SkillTargets(env)[0]
	mine := []byte("---\nname: deja\ndescription: mine\n---\n")
	if _, err := sk.add(mine); err == nil {
		t.Error("the user's skill was replaced")
	}
	if out, _ := sk.remove(mine); string(out) != string(mine) {
		t.Error("the user's skill was removed")
	}
	ours, err := sk.add(nil)
	if err != nil || !sk.has(ours) || !strings.Contains(string(ours), "description: ") || !strings.Contains(string(ours), "/opt/deja/bin/deja") {
		t.Fatalf("skill: %v\n%s", err, ours)
	}
	if out, _ := sk.remove(ours); len(out) != 0 {
		t.Errorf("deja's skill left %q", out)
	}
}

// TestClineHookLeavesTheUsersOwn: a Cline hook file the user wrote is
// neither replaced nor removed; deja's is executable and removed whole.
func TestClineHookLeavesTheUsersOwn(t *testing.T) {
	env := testEnv(t)
	hooks := clineHooks(env)
	if len(hooks) != len(clineEvents) || hooks[0].mode != 0o755 {
		t.Fatalf("hooks %d, mode %v", len(hooks), hooks[0].mode)
	}
	mine := []byte("#!/usr/bin/env bash\necho '{\"cancel\": false}'\n")
	if _, err := hooks[0].add(mine); err == nil {
		t.Error("the user's hook was replaced")
	}
	if out, _ := hooks[0].remove(mine); string(out) != string(mine) {
		t.Error("the user's hook was removed")
	}
	ours, err := hooks[0].add(nil)
	if err != nil || !strings.HasPrefix(string(ours), "#!/bin/sh\n") || !strings.Contains(string(ours), "exec /opt/deja/bin/deja hook cline\n") {
		t.Fatalf("hook: %v\n%s", err, ours)
	}
	if out, _ := hooks[0].remove(ours); len(out) != 0 {
		t.Errorf("deja's hook left %q", out)
	}
}

// TestUninstallKeepsTheUsersEmptyFile: a guidance file the user had, empty,
// is empty again after install and uninstall, not gone.
func TestUninstallKeepsTheUsersEmptyFile(t *testing.T) {
	env := testEnv(t)
	ctx := context.Background()
	g := GuidanceTargets(env)[0]
	if err := os.MkdirAll(filepath.Dir(g.File), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g.File, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, uninstall := range []bool{false, true} {
		c, err := Plan(ctx, g, uninstall)
		if err != nil {
			t.Fatal(err)
		}
		if err := Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(g.File)
	if err != nil || len(b) != 0 {
		t.Fatalf("the user's empty file: %q, %v", b, err)
	}
}
