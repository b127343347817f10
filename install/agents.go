// Package install wires deja into coding agents: it adds deja's MCP
// server (or, for aider, deja's context file) to each agent's own config
// file and takes it out again, editing the file's text so every other
// entry, comment and its layout stay as they were.
package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Agents are the names Targets knows, in the order it lists them.
var Agents = []string{"claude-code", "codex", "gemini", "cursor", "opencode", "aider"}

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
	// LookPath finds a program on PATH; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

// A Target is one agent's config file and how deja goes in and out of it.
type Target struct {
	Agent string
	File  string
	// What deja adds, in words ("mcpServers.deja", "read: <file>").
	Entry string
	// Found says why deja thinks the agent is installed ("" when not).
	Found  string
	add    func([]byte) ([]byte, error)
	remove func([]byte) ([]byte, error)
	has    func([]byte) bool
}

// Targets returns every agent's target under env.
func Targets(env Env) []Target {
	look := env.LookPath
	if look == nil {
		look = exec.LookPath
	}
	found := func(program string, dirs ...string) string {
		for _, d := range dirs {
			if _, err := os.Stat(d); err == nil {
				return d
			}
		}
		if program != "" {
			if p, err := look(program); err == nil {
				return p
			}
		}
		return ""
	}
	stdio := map[string]any{"command": env.Deja, "args": []string{"mcp"}}
	claude := map[string]any{"type": "stdio", "command": env.Deja, "args": []string{"mcp"}}
	opencode := map[string]any{"type": "local", "command": []string{env.Deja, "mcp"}, "enabled": true}

	ocFile := filepath.Join(env.ConfigDir, "opencode", "opencode.json")
	if _, err := os.Stat(ocFile); err != nil {
		if c := filepath.Join(env.ConfigDir, "opencode", "opencode.jsonc"); exists(c) {
			ocFile = c
		}
	}
	codexBody := "command = " + tomlString(env.Deja) + "\nargs = [\"mcp\"]\n"
	return []Target{
		jsonTarget("claude-code", filepath.Join(env.Home, ".claude.json"), false, "mcpServers", claude,
			found("claude", filepath.Join(env.Home, ".claude.json"), filepath.Join(env.Home, ".claude"))),
		{
			Agent: "codex", File: filepath.Join(env.CodexHome, "config.toml"), Entry: "[mcp_servers.deja]",
			Found:  found("codex", env.CodexHome),
			add:    func(b []byte) ([]byte, error) { return tomlAdd(b, "mcp_servers.deja", codexBody) },
			remove: func(b []byte) ([]byte, error) { return tomlRemove(b, "mcp_servers.deja") },
			has:    func(b []byte) bool { return tomlHas(b, "mcp_servers.deja") },
		},
		jsonTarget("gemini", filepath.Join(env.Home, ".gemini", "settings.json"), true, "mcpServers", stdio,
			found("gemini", filepath.Join(env.Home, ".gemini"))),
		jsonTarget("cursor", filepath.Join(env.Home, ".cursor", "mcp.json"), true, "mcpServers", stdio,
			found("cursor", filepath.Join(env.Home, ".cursor"))),
		jsonTarget("opencode", ocFile, true, "mcp", opencode,
			found("opencode", filepath.Join(env.ConfigDir, "opencode"), filepath.Join(env.Home, ".local", "share", "opencode"))),
		{
			Agent: "aider", File: filepath.Join(env.Project, ".aider.conf.yml"), Entry: "read: " + env.AiderRead,
			Found:  found("aider", filepath.Join(env.Project, ".aider.conf.yml"), filepath.Join(env.Project, ".aider.chat.history.md")),
			add:    func(b []byte) ([]byte, error) { return yamlAddListItem(b, "read", env.AiderRead) },
			remove: yamlRemoveMarked,
			has: func(b []byte) bool {
				out, err := yamlAddListItem(b, "read", env.AiderRead)
				return err == nil && string(out) == string(b)
			},
		},
	}
}

func jsonTarget(agent, file string, jsonc bool, key string, v any, found string) Target {
	return Target{
		Agent: agent, File: file, Entry: key + ".deja", Found: found,
		add:    func(b []byte) ([]byte, error) { return jsonAdd(b, jsonc, []string{key}, "deja", v) },
		remove: func(b []byte) ([]byte, error) { return jsonRemove(b, jsonc, []string{key}, "deja") },
		has: func(b []byte) bool {
			out, err := jsonAdd(b, jsonc, []string{key}, "deja", v)
			return err == nil && string(out) == string(b)
		},
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Select returns the targets named, or when names is empty those whose
// agent was found.
func Select(all []Target, names []string) ([]Target, error) {
	if len(names) == 0 {
		var out []Target
		for _, t := range all {
			if t.Found != "" {
				out = append(out, t)
			}
		}
		return out, nil
	}
	var out []Target
	for _, n := range names {
		i := -1
		for j, t := range all {
			if t.Agent == n {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("unknown agent %q: deja knows %s", n, strings.Join(Agents, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}
