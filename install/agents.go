// Package install wires deja into coding agents: it adds deja's MCP
// server (or, for aider, deja's context file) to each agent's own config
// file and takes it out again, editing the file's text so every other
// entry, comment and its layout stay as they were.
package install

import (
	"fmt"
	"os"
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
	// Record is the file where install notes the directories it created
	// (RecordFile in deja's data directory); "" keeps no record.
	Record string
}

// A Target is one agent's config file and how deja goes in and out of it.
type Target struct {
	Agent string
	File  string
	// What deja adds, in words ("mcpServers.deja", "read: <file>").
	Entry string
	// Found is the file or directory the agent leaves in the user's
	// home (or the project, for aider) that says it is installed; ""
	// when there is none. A program on PATH is not asked for, so what is
	// found does not depend on PATH.
	Found string
	// record is Env.Record.
	record string
	add    func([]byte) ([]byte, error)
	remove func([]byte) ([]byte, error)
	has    func([]byte) bool
	// present: some entry named deja is there, as written or not.
	present func([]byte) bool
}

// Targets returns every agent's target under env.
func Targets(env Env) []Target {
	found := func(_ string, dirs ...string) string {
		for _, d := range dirs {
			if _, err := os.Stat(d); err == nil {
				return d
			}
		}
		return ""
	}
	stdio := stdioServer{Command: env.Deja, Args: []string{"mcp"}}
	claude := stdioServer{Type: "stdio", Command: env.Deja, Args: []string{"mcp"}}
	opencode := opencodeServer{Type: "local", Command: []string{env.Deja, "mcp"}, Enabled: true}

	ocFile := filepath.Join(env.ConfigDir, "opencode", "opencode.json")
	if _, err := os.Stat(ocFile); err != nil {
		if c := filepath.Join(env.ConfigDir, "opencode", "opencode.jsonc"); exists(c) {
			ocFile = c
		}
	}
	codexBody := "command = " + tomlString(env.Deja) + "\nargs = [\"mcp\"]\n"
	targets := []Target{
		jsonTarget("claude-code", filepath.Join(env.Home, ".claude.json"), false, "mcpServers", claude,
			found("claude", filepath.Join(env.Home, ".claude.json"), filepath.Join(env.Home, ".claude"))),
		{
			Agent: "codex", File: filepath.Join(env.CodexHome, "config.toml"), Entry: "[mcp_servers.deja]",
			Found:  found("codex", env.CodexHome),
			add:    func(b []byte) ([]byte, error) { return tomlAdd(b, "mcp_servers.deja", codexBody) },
			remove: func(b []byte) ([]byte, error) { return tomlRemove(b, "mcp_servers.deja") },
			has: func(b []byte) bool {
				out, err := tomlAdd(b, "mcp_servers.deja", codexBody)
				return err == nil && string(out) == string(b)
			},
			present: func(b []byte) bool { return tomlHas(b, "mcp_servers.deja") },
		},
		jsonTarget("gemini", filepath.Join(env.Home, ".gemini", "settings.json"), true, "mcpServers", stdio,
			found("gemini", filepath.Join(env.Home, ".gemini"))),
		jsonTarget("cursor", filepath.Join(env.Home, ".cursor", "mcp.json"), true, "mcpServers", stdio,
			found("cursor", filepath.Join(env.Home, ".cursor"))),
		jsonTarget("opencode", ocFile, true, "mcp", opencode,
			found("opencode", filepath.Join(env.ConfigDir, "opencode"), filepath.Join(env.Home, ".local", "share", "opencode"))),
		{
			Agent: "aider", File: filepath.Join(env.Project, ".aider.conf.yml"), Entry: "read: " + env.AiderRead,
			Found:   found("aider", filepath.Join(env.Project, ".aider.conf.yml"), filepath.Join(env.Project, ".aider.chat.history.md"), filepath.Join(env.Home, ".aider")),
			add:     func(b []byte) ([]byte, error) { return yamlAddListItem(b, "read", env.AiderRead) },
			remove:  yamlRemoveMarked,
			present: func(b []byte) bool { return strings.Contains(string(b), yamlMarker) },
			has: func(b []byte) bool {
				out, err := yamlAddListItem(b, "read", env.AiderRead)
				return err == nil && string(out) == string(b)
			},
		},
	}
	for i := range targets {
		targets[i].record = env.Record
	}
	return targets
}

// stdioServer is the MCP entry of Claude Code, Gemini CLI and Cursor.
type stdioServer struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// opencodeServer is OpenCode's local MCP entry.
type opencodeServer struct {
	Type    string   `json:"type"`
	Command []string `json:"command"`
	Enabled bool     `json:"enabled"`
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
