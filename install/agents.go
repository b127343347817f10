// Package install wires deja into coding agents: it adds deja's MCP
// server (or, for aider, deja's context file) to each agent's own config
// file and takes it out again, editing the file's text so every other
// entry, comment and its layout stay as they were.
package install

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Agents are the agents install knows, in the order it lists them.
var Agents = []string{"claude-code", "codex", "gemini", "qwen", "copilot", "cursor", "cline", "opencode", "pi", "aider",
	"amp", "factory", "kiro", "kimi", "crush", "antigravity", "goose", "hermes", "zed"}

// binaries are the programs on PATH that say an agent is installed.
var binaries = map[string][]string{
	"claude-code": {"claude"},
	"codex":       {"codex"},
	"gemini":      {"gemini"},
	"qwen":        {"qwen"},
	"copilot":     {"copilot"},
	"cursor":      {"cursor-agent", "cursor"},
	"cline":       {"cline"},
	"opencode":    {"opencode"},
	"pi":          {"pi"},
	"aider":       {"aider"},
	"amp":         {"amp"},
	"factory":     {"droid"},
	"kiro":        {"kiro-cli"},
	"kimi":        {"kimi"},
	"crush":       {"crush"},
	"antigravity": {"agy", "antigravity"},
	"goose":       {"goose"},
	"hermes":      {"hermes"},
	"zed":         {"zed", "zeditor"},
}

// Found says where agent was found: the first of its files or
// directories that exists (dirs), else its program on env.Path; "" when
// neither is there.
func (env Env) Found(agent string) string {
	for _, d := range env.dirs(agent) {
		if exists(d) {
			return d
		}
	}
	for _, dir := range filepath.SplitList(env.Path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		for _, b := range binaries[agent] {
			for _, name := range []string{b, b + ".exe", b + ".cmd"} {
				if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() && (fi.Mode()&0o111 != 0 || filepath.Ext(name) != "") {
					return filepath.Join(dir, name)
				}
			}
		}
	}
	return ""
}

// dirs are the files and directories an installed agent leaves in the
// user's home (or, for aider, the project).
func (env Env) dirs(agent string) []string {
	h := env.Home
	switch agent {
	case "claude-code":
		return []string{filepath.Join(h, ".claude.json"), filepath.Join(h, ".claude")}
	case "codex":
		return []string{env.CodexHome}
	case "gemini":
		// Gemini CLI's own files, not ~/.gemini itself: Antigravity keeps
		// its folder (~/.gemini/antigravity) there too, and installing
		// deja into Antigravity alone makes ~/.gemini.
		g := filepath.Join(h, ".gemini")
		return []string{filepath.Join(g, "settings.json"), filepath.Join(g, "tmp"), filepath.Join(g, "oauth_creds.json"),
			filepath.Join(g, "google_accounts.json")}
	case "qwen":
		return []string{filepath.Join(h, ".qwen")}
	case "copilot":
		return []string{env.copilotHome()}
	case "cursor":
		return []string{filepath.Join(h, ".cursor")}
	case "cline":
		return []string{filepath.Join(h, ".cline")}
	case "opencode":
		return []string{filepath.Join(env.ConfigDir, "opencode"), filepath.Join(h, ".local", "share", "opencode")}
	case "pi":
		return []string{env.piDir()}
	case "aider":
		return []string{filepath.Join(env.Project, ".aider.conf.yml"), filepath.Join(env.Project, ".aider.chat.history.md"), filepath.Join(h, ".aider")}
	case "amp":
		return []string{filepath.Join(h, ".config", "amp"), filepath.Join(h, ".local", "share", "amp")}
	case "factory":
		return []string{filepath.Join(h, ".factory")}
	case "kiro":
		return []string{filepath.Join(h, ".kiro")}
	case "kimi":
		return []string{filepath.Join(h, ".kimi"), env.kimiCodeHome()}
	case "crush":
		return []string{env.crushDir(), filepath.Join(h, ".local", "share", "crush")}
	case "antigravity":
		return []string{filepath.Join(h, ".gemini", "antigravity")}
	case "goose":
		return []string{filepath.Join(env.ConfigDir, "goose"), filepath.Join(h, ".local", "share", "goose")}
	case "hermes":
		return []string{env.hermesHome()}
	case "zed":
		return []string{filepath.Join(env.ConfigDir, "zed"), filepath.Join(h, ".local", "share", "zed")}
	}
	return nil
}

func (env Env) copilotHome() string {
	if env.Getenv != nil && filepath.IsAbs(env.Getenv("COPILOT_HOME")) {
		return env.Getenv("COPILOT_HOME")
	}
	return filepath.Join(env.Home, ".copilot")
}

func (env Env) piDir() string {
	if env.Getenv != nil && filepath.IsAbs(env.Getenv("PI_CODING_AGENT_DIR")) {
		return env.Getenv("PI_CODING_AGENT_DIR")
	}
	return filepath.Join(env.Home, ".pi", "agent")
}

func (env Env) hermesHome() string {
	if env.Getenv != nil && filepath.IsAbs(env.Getenv("HERMES_HOME")) {
		return env.Getenv("HERMES_HOME")
	}
	return filepath.Join(env.Home, ".hermes")
}

// kimiCodeHome is Kimi Code's folder: $KIMI_CODE_HOME, else ~/.kimi-code
// (kimi-cli's is ~/.kimi).
func (env Env) kimiCodeHome() string {
	if env.Getenv != nil && filepath.IsAbs(env.Getenv("KIMI_CODE_HOME")) {
		return env.Getenv("KIMI_CODE_HOME")
	}
	return filepath.Join(env.Home, ".kimi-code")
}

// kimiFiles are the files under kimi-cli's ~/.kimi and Kimi Code's home
// that deja writes (name joined to each): Kimi Code's where it is
// installed, kimi-cli's where it is or Kimi Code is not.
func (env Env) kimiFiles(name ...string) []string {
	var out []string
	code := exists(env.kimiCodeHome())
	if cli := filepath.Join(env.Home, ".kimi"); exists(cli) || !code {
		out = append(out, filepath.Join(append([]string{cli}, name...)...))
	}
	if code {
		out = append(out, filepath.Join(append([]string{env.kimiCodeHome()}, name...)...))
	}
	return out
}

// crushDir is where Crush reads its user config, crush.json: the folder
// $CRUSH_GLOBAL_CONFIG names, else crush under XDG_CONFIG_HOME or
// ~/.config, on Windows too (%LOCALAPPDATA%\crush\crush.json is the state
// Crush writes itself).
func (env Env) crushDir() string {
	if env.Getenv != nil && filepath.IsAbs(env.Getenv("CRUSH_GLOBAL_CONFIG")) {
		return env.Getenv("CRUSH_GLOBAL_CONFIG")
	}
	return filepath.Join(env.ConfigDir, "crush")
}

func (env Env) clineMCP() string {
	if env.Getenv != nil && filepath.IsAbs(env.Getenv("CLINE_MCP_SETTINGS_PATH")) {
		return env.Getenv("CLINE_MCP_SETTINGS_PATH")
	}
	return filepath.Join(env.Home, ".cline", "data", "settings", "cline_mcp_settings.json")
}

// Env is what the targets depend on: where the user's files are and
// which deja binary the agents should start.
type Env struct {
	Home      string // the user's home directory
	ConfigDir string // XDG_CONFIG_HOME, or Home/.config
	CodexHome string // CODEX_HOME, or Home/.codex
	Project   string // the project aider is wired into (its .aider.conf.yml)
	Deja      string // absolute path of the deja binary
	// AiderRead is the context file aider is told to read.
	AiderRead string
	// Record is the file where install notes the directories it created
	// (RecordFile in deja's data directory); "" keeps no record.
	Record string
	// Path is the PATH an installed agent's program is looked for on.
	Path string
	// ProjectScope wires deja into Project's own config files (each
	// agent's project-level MCP file, hooks and skills) instead of the
	// user's.
	ProjectScope bool
	// Getenv reads the agents' own overrides (COPILOT_HOME,
	// PI_CODING_AGENT_DIR, CLINE_MCP_SETTINGS_PATH, HERMES_HOME,
	// KIMI_CODE_HOME, CRUSH_GLOBAL_CONFIG); nil reads none.
	Getenv func(string) string
}

// A Target is one agent's config file and how deja goes in and out of it.
type Target struct {
	Agent string
	File  string
	// What deja adds, in words ("mcpServers.deja", "read: <file>").
	Entry string
	// Found is the file or directory the agent leaves in the user's
	// home (or the project, for aider), or its program on PATH, that
	// says it is installed; "" when there is none (Env.Found).
	Found string
	// record is Env.Record.
	record string
	// mode is a new file's mode (0600 when zero): an executable hook
	// file's is 0755.
	mode os.FileMode
	// seed is what a file install creates starts from (Cursor's
	// hooks.json carries its "version"); left as that, or empty, or "{}",
	// a file install created goes on uninstall.
	seed   []byte
	add    func([]byte) ([]byte, error)
	remove func([]byte) ([]byte, error)
	has    func([]byte) bool
	// present: some entry named deja is there, as written or not.
	present func([]byte) bool
}

// Targets returns every agent's target under env.
func Targets(env Env) []Target {
	if env.ProjectScope {
		return projectTargets(env)
	}
	stdio := stdioServer{Command: env.Deja, Args: []string{"mcp"}}
	claude := stdioServer{Type: "stdio", Command: env.Deja, Args: []string{"mcp"}}
	copilot := copilotServer{Type: "local", Command: env.Deja, Args: []string{"mcp"}, Tools: []string{"*"}}
	cline := clineServer{Command: env.Deja, Args: []string{"mcp"}}
	opencode := opencodeServer{Type: "local", Command: []string{env.Deja, "mcp"}, Enabled: true}

	ocFile := filepath.Join(env.ConfigDir, "opencode", "opencode.json")
	if _, err := os.Stat(ocFile); err != nil {
		if c := filepath.Join(env.ConfigDir, "opencode", "opencode.jsonc"); exists(c) {
			ocFile = c
		}
	}
	targets := []Target{
		jsonTarget("claude-code", filepath.Join(env.Home, ".claude.json"), false, "mcpServers", claude),
		codexTarget(filepath.Join(env.CodexHome, "config.toml"), env.Deja),
		jsonTarget("gemini", filepath.Join(env.Home, ".gemini", "settings.json"), true, "mcpServers", stdio),
		jsonTarget("qwen", filepath.Join(env.Home, ".qwen", "settings.json"), true, "mcpServers", stdio),
		jsonTarget("copilot", filepath.Join(env.copilotHome(), "mcp-config.json"), false, "mcpServers", copilot),
		jsonTarget("cursor", filepath.Join(env.Home, ".cursor", "mcp.json"), true, "mcpServers", stdio),
		jsonTarget("cline", env.clineMCP(), false, "mcpServers", cline),
		jsonTarget("opencode", ocFile, true, "mcp", opencode),
		// Amp keeps its settings flat, VS Code style: the key is
		// "amp.mcpServers" itself.
		jsonTarget("amp", filepath.Join(env.Home, ".config", "amp", "settings.json"), true, "amp.mcpServers", stdio),
		jsonTarget("factory", filepath.Join(env.Home, ".factory", "mcp.json"), false, "mcpServers", claude),
		jsonTarget("kiro", filepath.Join(env.Home, ".kiro", "settings", "mcp.json"), false, "mcpServers", stdio),
		jsonTarget("crush", filepath.Join(env.crushDir(), "crush.json"), false, "mcp", claude),
		jsonTarget("antigravity", filepath.Join(env.Home, ".gemini", "antigravity", "mcp_config.json"), false, "mcpServers", stdio),
		yamlMapTarget("goose", filepath.Join(env.ConfigDir, "goose", "config.yaml"), "extensions", gooseExtension(env.Deja)),
		yamlMapTarget("hermes", filepath.Join(env.hermesHome(), "config.yaml"), "mcp_servers", hermesServer(env.Deja)),
		jsonTarget("zed", filepath.Join(env.ConfigDir, "zed", "settings.json"), true, "context_servers", zedServer{
			Source: "custom", Command: env.Deja, Args: []string{"mcp"}, Env: map[string]string{}}),
		{
			Agent: "aider", File: filepath.Join(env.Project, ".aider.conf.yml"), Entry: "read: " + env.AiderRead,
			add:     func(b []byte) ([]byte, error) { return yamlAddListItem(b, "read", env.AiderRead) },
			remove:  yamlRemoveMarked,
			present: func(b []byte) bool { return strings.Contains(string(b), yamlMarker) },
			has: func(b []byte) bool {
				out, err := yamlAddListItem(b, "read", env.AiderRead)
				return err == nil && string(out) == string(b)
			},
		},
	}
	// kimi-cli's ~/.kimi/mcp.json and Kimi Code's ~/.kimi-code/mcp.json
	// ($KIMI_CODE_HOME): each that is installed.
	for _, f := range env.kimiFiles("mcp.json") {
		targets = append(targets, jsonTarget("kimi", f, false, "mcpServers", stdio))
	}
	for i := range targets {
		targets[i].record = env.Record
		targets[i].Found = env.Found(targets[i].Agent)
	}
	return targets
}

// projectTargets are the project-level MCP files of the agents that
// have one: Claude Code's .mcp.json, Codex's .codex/config.toml (read in
// trusted projects), Gemini CLI's and Qwen Code's settings.json, Cursor's
// .cursor/mcp.json, OpenCode's opencode.json, Factory droid's
// .factory/mcp.json and Kiro's .kiro/settings/mcp.json; aider's is the
// project's already. Copilot CLI, Cline, pi and the others have none deja
// writes.
func projectTargets(env Env) []Target {
	p := env.Project
	stdio := stdioServer{Command: env.Deja, Args: []string{"mcp"}}
	claude := stdioServer{Type: "stdio", Command: env.Deja, Args: []string{"mcp"}}
	opencode := opencodeServer{Type: "local", Command: []string{env.Deja, "mcp"}, Enabled: true}
	ocFile := filepath.Join(p, "opencode.json")
	if c := filepath.Join(p, "opencode.jsonc"); !exists(ocFile) && exists(c) {
		ocFile = c
	}
	targets := []Target{
		jsonTarget("claude-code", filepath.Join(p, ".mcp.json"), false, "mcpServers", claude),
		codexTarget(filepath.Join(p, ".codex", "config.toml"), env.Deja),
		jsonTarget("gemini", filepath.Join(p, ".gemini", "settings.json"), true, "mcpServers", stdio),
		jsonTarget("qwen", filepath.Join(p, ".qwen", "settings.json"), true, "mcpServers", stdio),
		jsonTarget("cursor", filepath.Join(p, ".cursor", "mcp.json"), true, "mcpServers", stdio),
		jsonTarget("opencode", ocFile, true, "mcp", opencode),
		jsonTarget("factory", filepath.Join(p, ".factory", "mcp.json"), false, "mcpServers", claude),
		jsonTarget("kiro", filepath.Join(p, ".kiro", "settings", "mcp.json"), false, "mcpServers", stdio),
	}
	for _, t := range Targets(Env{Home: env.Home, ConfigDir: env.ConfigDir, CodexHome: env.CodexHome, Project: env.Project,
		Deja: env.Deja, AiderRead: env.AiderRead, Record: env.Record, Path: env.Path, Getenv: env.Getenv}) {
		if t.Agent == "aider" {
			targets = append(targets, t)
		}
	}
	for i := range targets {
		targets[i].record = env.Record
		targets[i].Found = env.Found(targets[i].Agent)
	}
	return targets
}

// codexTarget is Codex's [mcp_servers.deja] table in the config.toml file.
func codexTarget(file, deja string) Target {
	body := "command = " + tomlString(deja) + "\nargs = [\"mcp\"]\n"
	return Target{
		Agent: "codex", File: file, Entry: "[mcp_servers.deja]",
		add:    func(b []byte) ([]byte, error) { return tomlAdd(b, "mcp_servers.deja", body) },
		remove: func(b []byte) ([]byte, error) { return tomlRemove(b, "mcp_servers.deja") },
		has: func(b []byte) bool {
			out, err := tomlAdd(b, "mcp_servers.deja", body)
			return err == nil && string(out) == string(b)
		},
		present: func(b []byte) bool { return tomlHas(b, "mcp_servers.deja") },
	}
}

// copilotServer is Copilot CLI's local MCP entry: its type and the tools
// it may call are required.
type copilotServer struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Tools   []string `json:"tools"`
}

// clineServer is Cline's stdio MCP entry.
type clineServer struct {
	Command  string   `json:"command"`
	Args     []string `json:"args"`
	Disabled bool     `json:"disabled"`
}

// stdioServer is the MCP entry of Claude Code, Gemini CLI, Cursor and
// most others; Claude Code, Factory droid and Crush name its type.
type stdioServer struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// zedServer is a custom context server in Zed's settings.json.
type zedServer struct {
	Source  string            `json:"source"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// opencodeServer is OpenCode's local MCP entry.
type opencodeServer struct {
	Type    string   `json:"type"`
	Command []string `json:"command"`
	Enabled bool     `json:"enabled"`
}

// jsonTarget is not inlined: inlined, each call would compile its four
// closures anew, about 1 kB of binary per agent.
//
//go:noinline
func jsonTarget(agent, file string, jsonc bool, key string, v any) Target {
	return Target{
		Agent: agent, File: file, Entry: key + ".deja",
		add:    func(b []byte) ([]byte, error) { return jsonAdd(b, jsonc, []string{key}, "deja", v) },
		remove: func(b []byte) ([]byte, error) { return jsonRemove(b, jsonc, []string{key}, "deja") },
		has: func(b []byte) bool {
			out, err := jsonAdd(b, jsonc, []string{key}, "deja", v)
			return err == nil && string(out) == string(b)
		},
		present: func(b []byte) bool {
			out, err := jsonRemove(b, jsonc, []string{key}, "deja")
			return err == nil && string(out) != string(b)
		},
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// What says what install wires in besides each agent's MCP server.
type What struct {
	// Hooks: 'deja hook AGENT' at each moment the agent offers.
	Hooks bool
	// Skills: deja's SKILL.md where the agent has skills.
	Skills bool
	// Guidance: deja's block in the agent's user-level guidance file.
	Guidance bool
	// Uninstall: the targets are to be taken out; a file other installed
	// agents share (the ~/.agents/skills skill) stays while one of them
	// is not being uninstalled too.
	Uninstall bool
}

// Wiring returns the targets of the agents named, or when names is empty
// of those found (Env.Found), in Agents order: each agent's MCP entry
// (joined with its hooks when they share a file: one edit, one backup),
// hooks, skill and guidance as what asks. A file two agents share (the
// ~/.agents/skills skill) comes once, under the first of them.
func Wiring(env Env, names []string, what What) ([]Target, error) {
	for _, n := range names {
		if !slices.Contains(Agents, n) {
			return nil, fmt.Errorf("unknown agent %q: deja knows %s", n, strings.Join(Agents, ", "))
		}
	}
	var agents []string
	for _, a := range Agents {
		if (len(names) == 0 && env.Found(a) != "") || slices.Contains(names, a) {
			agents = append(agents, a)
		}
	}
	var extra [][]Target
	if what.Hooks {
		extra = append(extra, HookTargets(env))
	}
	if what.Skills {
		skills := SkillTargets(env)
		if what.Uninstall {
			skills = slices.DeleteFunc(skills, func(t Target) bool {
				for _, o := range SkillTargets(env) {
					if o.File == t.File && o.Agent != t.Agent && !slices.Contains(agents, o.Agent) && env.Found(o.Agent) != "" {
						return true
					}
				}
				return false
			})
		}
		extra = append(extra, skills)
	}
	if what.Guidance {
		extra = append(extra, GuidanceTargets(env))
	}
	mcp := Targets(env)
	var out []Target
	seen := map[string]bool{}
	for _, a := range agents {
		var mine []Target
		for _, t := range mcp {
			if t.Agent == a {
				mine = append(mine, t)
			}
		}
		for _, list := range extra {
			for _, t := range list {
				if t.Agent != a || seen[t.File] {
					continue
				}
				if i := slices.IndexFunc(mine, func(m Target) bool { return m.File == t.File }); i >= 0 {
					mine[i] = Merge(mine[i], t)
					continue
				}
				mine = append(mine, t)
			}
		}
		for _, t := range mine {
			if !seen[t.File] {
				seen[t.File] = true
				out = append(out, t)
			}
		}
	}
	return out, nil
}
