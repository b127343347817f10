package install

import (
	"path/filepath"
	"strings"
)

// HookAgents are the agents with a prompt hook 'deja hook' answers.
// Cursor, OpenCode and aider have none that adds context to a prompt.
var HookAgents = []string{"claude-code", "codex", "gemini"}

// hookCommand is one command hook, in the shape Claude Code, Codex and
// Gemini CLI share: {"type": "command", "command": …, "timeout": …}.
type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Name    string `json:"name,omitempty"`
	Timeout int    `json:"timeout"`
}

// hookGroup is one matcher group: the hooks that run for an event.
type hookGroup struct {
	Hooks []hookCommand `json:"hooks"`
}

// HookTargets returns the target that registers 'deja hook AGENT' for
// each agent in HookAgents: Claude Code's UserPromptSubmit in
// ~/.claude/settings.json, Codex's UserPromptSubmit in
// $CODEX_HOME/hooks.json and Gemini CLI's BeforeAgent in
// ~/.gemini/settings.json. The agent waits at most the timeout (Claude
// Code and Codex count seconds, Gemini CLI milliseconds); the hook
// itself gives up sooner and prints nothing.
func HookTargets(env Env) []Target {
	found := func(d string) string {
		if exists(d) {
			return d
		}
		return ""
	}
	group := func(agent string, timeout int, name string) hookGroup {
		return hookGroup{Hooks: []hookCommand{{Type: "command", Command: shellWord(env.Deja) + " hook " + agent, Name: name, Timeout: timeout}}}
	}
	targets := []Target{
		hookTarget("claude-code", filepath.Join(env.Home, ".claude", "settings.json"), false,
			[]string{"hooks", "UserPromptSubmit"}, group("claude-code", 5, ""), found(filepath.Join(env.Home, ".claude"))),
		hookTarget("codex", filepath.Join(env.CodexHome, "hooks.json"), false,
			[]string{"hooks", "UserPromptSubmit"}, group("codex", 5, ""), found(env.CodexHome)),
		hookTarget("gemini", filepath.Join(env.Home, ".gemini", "settings.json"), true,
			[]string{"hooks", "BeforeAgent"}, group("gemini", 5000, "deja"), found(filepath.Join(env.Home, ".gemini"))),
	}
	for i := range targets {
		targets[i].record = env.Record
	}
	return targets
}

func hookTarget(agent, file string, jsonc bool, path []string, g hookGroup, found string) Target {
	return Target{
		Agent: agent, File: file, Entry: strings.Join(path, ".") + ": " + g.Hooks[0].Command, Found: found,
		add:    func(b []byte) ([]byte, error) { return jsonAppend(b, jsonc, path, g) },
		remove: func(b []byte) ([]byte, error) { return jsonDrop(b, jsonc, path, g) },
		has: func(b []byte) bool {
			out, err := jsonAppend(b, jsonc, path, g)
			return err == nil && string(out) == string(b)
		},
		present: func(b []byte) bool {
			out, err := jsonDrop(b, jsonc, path, g)
			return err == nil && string(out) != string(b)
		},
	}
}

// Merge joins two targets on the same file into one, so that one edit
// (and one backup, of the file as it was) does both: Gemini CLI keeps
// its MCP servers and its hooks in the same settings.json.
func Merge(a, b Target) Target {
	return Target{
		Agent: a.Agent, File: a.File, Entry: a.Entry + " and " + b.Entry, Found: a.Found, record: a.record,
		add: func(src []byte) ([]byte, error) {
			out, err := a.add(src)
			if err != nil {
				return nil, err
			}
			return b.add(out)
		},
		remove: func(src []byte) ([]byte, error) {
			out, err := b.remove(src)
			if err != nil {
				return nil, err
			}
			return a.remove(out)
		},
		has:     func(src []byte) bool { return a.has(src) && b.has(src) },
		present: func(src []byte) bool { return a.present(src) || b.present(src) },
	}
}

// shellWord quotes path for the shell the agents run hook commands with,
// when it needs quoting.
func shellWord(path string) string {
	if path != "" && strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") == "" {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}
