package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// newAgents are the agents whose MCP config install learned with their
// readers: the file each keeps its servers in, a config of the user's
// own there (other servers, comments, other settings), and what deja's
// entry must hold once installed.
var newAgents = []struct {
	agent, file, theirs string
	want                []string
}{
	{"amp", ".config/amp/settings.json",
		"{\n  // mine\n  \"amp.mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  },\n  \"amp.updates.mode\": \"warn\"\n}\n",
		[]string{`"amp.mcpServers": {`, `"deja": {`, `"command": "/opt/deja/bin/deja"`, `"mcp"`}},
	{"factory", ".factory/mcp.json",
		"{\n  \"mcpServers\": {\n    \"linear\": {\"type\": \"http\", \"url\": \"https://mcp.linear.app/mcp\"}\n  }\n}\n",
		[]string{`"deja": {`, `"type": "stdio"`, `"command": "/opt/deja/bin/deja"`}},
	{"kiro", ".kiro/settings/mcp.json",
		"{\n  \"mcpServers\": {\n    \"web-search\": {\"command\": \"npx\", \"args\": [\"-y\", \"s\"]}\n  }\n}\n",
		[]string{`"deja": {`, `"command": "/opt/deja/bin/deja"`}},
	{"kimi", ".kimi/mcp.json",
		"{\n  \"mcpServers\": {\n    \"context7\": {\"url\": \"https://mcp.context7.com/mcp\"}\n  }\n}\n",
		[]string{`"deja": {`, `"command": "/opt/deja/bin/deja"`}},
	{"crush", ".config/crush/crush.json",
		"{\n  \"$schema\": \"https://charm.land/crush.json\",\n  \"lsp\": {\"go\": {\"command\": \"gopls\"}}\n}\n",
		[]string{`"mcp": {`, `"deja": {`, `"type": "stdio"`, `"command": "/opt/deja/bin/deja"`}},
	{"antigravity", ".gemini/antigravity/mcp_config.json",
		"{\n  \"mcpServers\": {\n    \"x\": {\"serverUrl\": \"https://x.example/mcp\"}\n  }\n}\n",
		[]string{`"deja": {`, `"command": "/opt/deja/bin/deja"`}},
	{"goose", ".config/goose/config.yaml",
		"GOOSE_PROVIDER: anthropic # mine\nextensions:\n  developer:\n    bundled: true\n    enabled: true\n    name: developer\n    timeout: 300\n    type: builtin\nGOOSE_MODE: smart_approve\n",
		[]string{`  deja: `, `    cmd: "/opt/deja/bin/deja" `, `    args: ["mcp"] `, `    type: "stdio" `}},
	{"zed", ".config/zed/settings.json",
		"// Zed settings\n{\n  \"theme\": \"One Dark\",\n  \"context_servers\": {\n    \"other\": {\"source\": \"custom\", \"command\": \"x\", \"args\": []},\n  },\n}\n",
		[]string{`"context_servers": {`, `"deja": {`, `"source": "custom"`, `"command": "/opt/deja/bin/deja"`}},
	{"hermes", ".hermes/config.yaml",
		"model:\n  default: anthropic/claude-opus-4.6\n# my servers\nmcp_servers:\n    filesystem:\n        command: \"npx\"\n        args: [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/tmp\"]\n",
		[]string{`    deja: `, `        command: "/opt/deja/bin/deja" `}},
}

// TestNewAgentsInstall installs each new agent's MCP entry into its own
// config and takes it out again: the file comes back byte for byte, a
// second install changes nothing, Wired sees it in and out; into an empty
// home, the file install made goes again on uninstall.
func TestNewAgentsInstall(t *testing.T) {
	ctx := context.Background()
	for _, n := range newAgents {
		t.Run(n.agent, func(t *testing.T) {
			env := testEnv(t)
			tg := target(t, env, n.agent)
			if want := filepath.Join(env.Home, filepath.FromSlash(n.file)); tg.File != want {
				t.Fatalf("file %s, want %s", tg.File, want)
			}
			if err := os.MkdirAll(filepath.Dir(tg.File), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(tg.File, []byte(n.theirs), 0o600); err != nil {
				t.Fatal(err)
			}
			if env.Found(n.agent) == "" {
				t.Errorf("%s not found with %s there", n.agent, tg.File)
			}
			c, err := Plan(ctx, tg, false)
			if err != nil || c.Action != "add" {
				t.Fatalf("plan: %v %s", err, c.Action)
			}
			if err := Apply(ctx, c); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(tg.File)
			for _, w := range n.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("installed file lacks %q:\n%s", w, b)
				}
			}
			if strings.HasSuffix(n.file, ".yaml") {
				var doc map[string]any
				if err := yaml.Unmarshal(b, &doc); err != nil {
					t.Fatalf("installed YAML does not parse: %v\n%s", err, b)
				}
			} else if err := jsonValid(b, n.agent == "amp" || n.agent == "zed"); err != nil {
				t.Fatalf("installed JSON does not parse: %v\n%s", err, b)
			}
			if ok, present, err := Wired(ctx, tg); !ok || !present || err != nil {
				t.Fatalf("Wired after install: %v %v %v", ok, present, err)
			}
			if c, err := Plan(ctx, tg, false); err != nil || c.Action != "unchanged" {
				t.Fatalf("second install: %v %s", err, c.Action)
			}
			other := env
			other.Deja = "/elsewhere/deja"
			if ok, present, _ := Wired(ctx, target(t, other, n.agent)); ok || !present {
				t.Errorf("another deja: wired %v present %v", ok, present)
			}
			if c, err = Plan(ctx, tg, true); err != nil || c.Action != "remove" {
				t.Fatalf("plan uninstall: %v %s", err, c.Action)
			}
			if err := Apply(ctx, c); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(tg.File); string(b) != n.theirs {
				t.Fatalf("after uninstall:\n%q\nwant\n%q", b, n.theirs)
			}
			if ok, present, _ := Wired(ctx, tg); ok || present {
				t.Fatal("Wired after uninstall")
			}

			// A home with nothing of the agent's: install makes the file
			// (and its directories), uninstall takes them away.
			env = testEnv(t)
			tg = target(t, env, n.agent)
			if c, err = Plan(ctx, tg, false); err != nil {
				t.Fatal(err)
			}
			if err := Apply(ctx, c); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(tg.File); !strings.Contains(string(b), env.Deja) {
				t.Fatalf("new file: %q", b)
			}
			if c, err = Plan(ctx, tg, true); err != nil || !c.Delete {
				t.Fatalf("uninstall of a new file: %v delete=%v new=%q", err, c.Delete, c.New)
			}
			if err := Apply(ctx, c); err != nil {
				t.Fatal(err)
			}
			top := filepath.Join(env.Home, strings.SplitN(n.file, "/", 2)[0])
			if _, err := os.Stat(top); !os.IsNotExist(err) {
				t.Errorf("%s left after uninstall: %v", top, err)
			}
		})
	}
}

// TestYAMLMapEntryLeavesTheUsersOwn refuses to replace a deja entry the
// user wrote in a YAML config, and rewrites one install wrote for another
// deja in place.
func TestYAMLMapEntryLeavesTheUsersOwn(t *testing.T) {
	theirs := "mcp_servers:\n  deja:\n    command: /mine/deja\n"
	if _, err := yamlAddMapEntry([]byte(theirs), "mcp_servers", "deja", hermesServer("/opt/deja")); err == nil {
		t.Fatal("replaced the user's own entry")
	}
	old, err := yamlAddMapEntry([]byte("a: 1\n"), "mcp_servers", "deja", hermesServer("/old/deja"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := yamlAddMapEntry(old, "mcp_servers", "deja", hermesServer("/opt/deja"))
	if err != nil || strings.Contains(string(out), "/old/deja") || !strings.Contains(string(out), `"/opt/deja"`) {
		t.Fatalf("rewrite: %v\n%s", err, out)
	}
	if back, _ := yamlRemoveMarked(out); string(back) != "a: 1\n" {
		t.Fatalf("after remove %q", back)
	}
	for _, doc := range []string{"mcp_servers: {}\n", "mcp_servers: [a]\n"} {
		if _, err := yamlAddMapEntry([]byte(doc), "mcp_servers", "deja", hermesServer("/opt/deja")); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
}

// TestGeminiIsNotAntigravity: Antigravity keeps its folder in ~/.gemini,
// and deja installed into Antigravity alone makes ~/.gemini; Gemini CLI
// is found by its own files there, never by the folder.
func TestGeminiIsNotAntigravity(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t)
	c, err := Plan(ctx, target(t, env, "antigravity"), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	if env.Found("antigravity") == "" {
		t.Fatal("antigravity not found in its own folder")
	}
	if f := env.Found("gemini"); f != "" {
		t.Fatalf("Gemini CLI found in %s: only Antigravity's folder is in ~/.gemini", f)
	}
	for _, own := range []string{"settings.json", "tmp", "oauth_creds.json"} {
		p := filepath.Join(env.Home, ".gemini", own)
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		if f := env.Found("gemini"); f != p {
			t.Errorf("with %s: found %q", own, f)
		}
		os.Remove(p)
	}
}

// TestKimiCodeAndCrushHomes: kimi-cli keeps its MCP file and skills in
// ~/.kimi, Kimi Code in ~/.kimi-code ($KIMI_CODE_HOME), and deja writes
// into each one that is installed (kimi-cli's when neither is); Crush
// reads its crush.json from $CRUSH_GLOBAL_CONFIG when that is set.
func TestKimiCodeAndCrushHomes(t *testing.T) {
	files := func(env Env) (mcp, skills []string) {
		ts, err := Wiring(env, []string{"kimi"}, What{Skills: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range ts {
			rel, _ := filepath.Rel(env.Home, tg.File)
			if strings.HasSuffix(rel, "SKILL.md") {
				skills = append(skills, filepath.ToSlash(rel))
			} else {
				mcp = append(mcp, filepath.ToSlash(rel))
			}
		}
		return mcp, skills
	}
	env := testEnv(t)
	if m, s := files(env); strings.Join(m, " ") != ".kimi/mcp.json" || strings.Join(s, " ") != ".kimi/skills/deja/SKILL.md" {
		t.Errorf("no Kimi: %v %v", m, s)
	}
	os.Mkdir(filepath.Join(env.Home, ".kimi-code"), 0o700)
	if m, s := files(env); strings.Join(m, " ") != ".kimi-code/mcp.json" || strings.Join(s, " ") != ".kimi-code/skills/deja/SKILL.md" {
		t.Errorf("Kimi Code: %v %v", m, s)
	}
	if env.Found("kimi") != filepath.Join(env.Home, ".kimi-code") {
		t.Errorf("Kimi Code not found: %q", env.Found("kimi"))
	}
	os.Mkdir(filepath.Join(env.Home, ".kimi"), 0o700)
	if m, _ := files(env); strings.Join(m, " ") != ".kimi/mcp.json .kimi-code/mcp.json" {
		t.Errorf("both: %v", m)
	}
	os.Remove(filepath.Join(env.Home, ".kimi-code"))
	os.Remove(filepath.Join(env.Home, ".kimi"))
	os.Mkdir(filepath.Join(env.Home, "kc"), 0o700)
	over := map[string]string{"KIMI_CODE_HOME": filepath.Join(env.Home, "kc"), "CRUSH_GLOBAL_CONFIG": filepath.Join(env.Home, "cc")}
	env.Getenv = func(k string) string { return over[k] }
	if m, _ := files(env); strings.Join(m, " ") != "kc/mcp.json" {
		t.Errorf("KIMI_CODE_HOME: %v", m)
	}
	if f := target(t, env, "crush").File; f != filepath.Join(env.Home, "cc", "crush.json") {
		t.Errorf("CRUSH_GLOBAL_CONFIG: %s", f)
	}
}
