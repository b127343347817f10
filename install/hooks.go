package install

import (
	"bytes"
	"path/filepath"
	"strings"
)

// HookAgents are the agents with hooks 'deja hook' answers (OpenCode and
// pi through a plugin and an extension deja writes). Copilot CLI's hook
// output is not processed and aider has no hooks.
var HookAgents = []string{"claude-code", "codex", "gemini", "qwen", "cursor", "cline", "opencode", "pi", "factory"}

// hookCommand is one command hook, in the shape Claude Code, Codex,
// Gemini CLI and Qwen Code share: {"type": "command", "command": …,
// "timeout": …}.
type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Name    string `json:"name,omitempty"`
	Timeout int    `json:"timeout"`
}

// hookGroup is one matcher group: the hooks that run for an event (for a
// tool event, the tools Matcher names).
type hookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookCommand `json:"hooks"`
}

// hookEvent is one event deja registers for, with its matcher.
type hookEvent struct {
	Name    string
	Matcher string
}

// HookTargets returns, for each agent in HookAgents, the target that
// registers 'deja hook AGENT' at every moment whose answer reaches the
// model:
//
//   - Claude Code (~/.claude/settings.json): UserPromptSubmit,
//     SessionStart (every source: after a compaction it answers with the
//     session so far) and PreToolUse for the tools that edit files or run
//     commands;
//   - Codex ($CODEX_HOME/hooks.json): the same events, its tools Bash and
//     apply_patch;
//   - Gemini CLI (~/.gemini/settings.json): BeforeAgent and SessionStart
//     (its BeforeTool and PreCompress cannot add context);
//   - Qwen Code (~/.qwen/settings.json): Claude Code's events, its tools
//     edit, write_file and run_shell_command;
//   - Factory droid (~/.factory/hooks.json, or its settings.json when
//     there is no hooks.json but a settings.json: droid reads the
//     settings' hooks only then): UserPromptSubmit and SessionStart (its
//     PreToolUse can only allow, deny or ask).
//
// The agent waits at most the timeout (Claude Code and Codex count
// seconds, Gemini CLI and Qwen Code milliseconds); the hook itself gives
// up sooner and prints nothing.
func HookTargets(env Env) []Target {
	targets := append(append(append(clineHooks(env), openCodeHooks(env)...), piHooks(env)...), cursorHooks(env))
	for _, h := range hookSpecs(env) {
		t := hookTarget(h.agent, h.file, h.jsonc, h.cmd, h.events...)
		t.record, t.Found = env.Record, env.Found(h.agent)
		targets = append(targets, t)
	}
	return targets
}

// HookEvents returns one target per event deja registers for agent, so
// that each can be checked on its own (Wired); nil for an agent without
// hooks.
func HookEvents(env Env, agent string) (names []string, targets []Target) {
	if agent == "opencode" {
		return []string{"plugin"}, openCodeHooks(env)
	}
	if agent == "pi" {
		return []string{"extension"}, piHooks(env)
	}
	if agent == "cursor" {
		return []string{"sessionStart"}, []Target{cursorHooks(env)}
	}
	if agent == "cline" {
		for _, t := range clineHooks(env) {
			names, targets = append(names, filepath.Base(t.File)), append(targets, t)
		}
		return names, targets
	}
	for _, h := range hookSpecs(env) {
		if h.agent != agent {
			continue
		}
		for _, e := range h.events {
			t := hookTarget(h.agent, h.file, h.jsonc, h.cmd, e)
			t.record, t.Found = env.Record, env.Found(h.agent)
			names, targets = append(names, e.Name), append(targets, t)
		}
	}
	return names, targets
}

// clineEvents are the Cline hooks deja answers: a task's start or
// resumption, each prompt, and each tool about to run (Cline's PreCompact is not wired).
var clineEvents = []string{"TaskStart", "TaskResume", "UserPromptSubmit", "PreToolUse"}

// clineMark says deja wrote a Cline hook file.
const clineMark = "# written by 'deja install --hooks'; 'deja install --hooks --uninstall' removes it"

// clineHooks are Cline's hooks: an executable file per event, named after
// it, in ~/Documents/Cline/Hooks (a project's .clinerules/hooks with
// --project), that runs 'deja hook cline'. Cline runs them once "Enable
// Hooks" is on in its settings. A hook file of the user's own under the
// same name is never replaced or removed.
func clineHooks(env Env) []Target {
	dir := filepath.Join(env.Home, "Documents", "Cline", "Hooks")
	if env.ProjectScope {
		dir = filepath.Join(env.Project, ".clinerules", "hooks")
	}
	text := []byte("#!/bin/sh\n" + clineMark + "\nexec " + shellWord(env.Deja) + " hook cline\n")
	var out []Target
	for _, e := range clineEvents {
		t := ownedFile(env, "cline", filepath.Join(dir, e), "hook "+e+": deja hook cline", text, clineMark,
			"a Cline hook of your own is there; it is left alone (Cline runs one file per event: call 'deja hook cline' from it)")
		t.mode = 0o755
		out = append(out, t)
	}
	return out
}

// cursorHook is one of Cursor's hooks: a command, in hooks.json's list
// for its event.
type cursorHook struct {
	Command string `json:"command"`
}

// cursorHooks registers 'deja hook cursor' for Cursor's sessionStart in
// ~/.cursor/hooks.json (a project's .cursor/hooks.json with --project),
// whose additional_context Cursor keeps as the conversation's context. A
// file deja creates starts with the "version": 1 Cursor's hooks.json
// carries. Cursor's beforeSubmitPrompt only lets a prompt go or stops it
// and its preCompact only observes; its preToolUse is not wired yet.
func cursorHooks(env Env) Target {
	dir := filepath.Join(env.Home, ".cursor")
	if env.ProjectScope {
		dir = filepath.Join(env.Project, ".cursor")
	}
	h := cursorHook{Command: shellWord(env.Deja) + " hook cursor"}
	path := []string{"hooks", "sessionStart"}
	seed := []byte("{\n  \"version\": 1\n}\n")
	t := Target{Agent: "cursor", File: filepath.Join(dir, "hooks.json"), Entry: "hooks sessionStart: " + h.Command,
		record: env.Record, Found: env.Found("cursor"), seed: seed,
		add: func(b []byte) ([]byte, error) {
			if len(bytes.TrimSpace(b)) == 0 {
				b = seed
			}
			return jsonAppend(b, false, path, h)
		},
		remove: func(b []byte) ([]byte, error) { return jsonDrop(b, false, path, h) },
	}
	t.has = func(b []byte) bool {
		out, err := t.add(b)
		return err == nil && bytes.Equal(out, b)
	}
	t.present = func(b []byte) bool {
		out, err := t.remove(b)
		return err == nil && !bytes.Equal(out, b)
	}
	return t
}

// hookSpec is one agent's hooks file and the events deja registers in it.
type hookSpec struct {
	agent, file string
	jsonc       bool
	cmd         hookCommand
	events      []hookEvent
}

func hookSpecs(env Env) []hookSpec {
	// The project's own hooks files, with --project: the same shapes.
	home, codexHome := env.Home, env.CodexHome
	if env.ProjectScope {
		home, codexHome = env.Project, filepath.Join(env.Project, ".codex")
	}
	cmd := func(agent string, timeout int, name string) hookCommand {
		return hookCommand{Type: "command", Command: shellWord(env.Deja) + " hook " + agent, Name: name, Timeout: timeout}
	}
	return []hookSpec{
		{"claude-code", filepath.Join(home, ".claude", "settings.json"), false, cmd("claude-code", 5, ""),
			[]hookEvent{{Name: "UserPromptSubmit"}, {Name: "SessionStart"},
				{Name: "PreToolUse", Matcher: "Edit|MultiEdit|Write|NotebookEdit|Bash"}}},
		{"codex", filepath.Join(codexHome, "hooks.json"), false, cmd("codex", 5, ""),
			[]hookEvent{{Name: "UserPromptSubmit"}, {Name: "SessionStart"},
				{Name: "PreToolUse", Matcher: "Bash|apply_patch"}}},
		{"gemini", filepath.Join(home, ".gemini", "settings.json"), true, cmd("gemini", 5000, "deja"),
			[]hookEvent{{Name: "BeforeAgent"}, {Name: "SessionStart"}}},
		{"qwen", filepath.Join(home, ".qwen", "settings.json"), true, cmd("qwen", 5000, "deja"),
			[]hookEvent{{Name: "UserPromptSubmit"}, {Name: "SessionStart"},
				{Name: "PreToolUse", Matcher: "^(edit|write_file|run_shell_command)$"}}},
		{"factory", factoryHooksFile(filepath.Join(home, ".factory")), true, cmd("factory", 5, ""),
			[]hookEvent{{Name: "UserPromptSubmit"}, {Name: "SessionStart"}}},
	}
}

// factoryHooksFile is where droid reads the hooks of dir (~/.factory, or a
// project's .factory): hooks.json, or settings.json's hooks while there is
// no hooks.json, so a hooks.json deja made would not hide them.
func factoryHooksFile(dir string) string {
	hooks, settings := filepath.Join(dir, "hooks.json"), filepath.Join(dir, "settings.json")
	if !exists(hooks) && exists(settings) {
		return settings
	}
	return hooks
}

// hookTarget registers c for each event, after the hooks already there.
func hookTarget(agent, file string, jsonc bool, c hookCommand, events ...hookEvent) Target {
	names := make([]string, len(events))
	for i, e := range events {
		names[i] = e.Name
	}
	each := func(src []byte, f func([]byte, bool, []string, any) ([]byte, error)) ([]byte, error) {
		out := src
		for _, e := range events {
			var err error
			if out, err = f(out, jsonc, []string{"hooks", e.Name}, hookGroup{Matcher: e.Matcher, Hooks: []hookCommand{c}}); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	t := Target{
		Agent: agent, File: file, Entry: "hooks " + strings.Join(names, ", ") + ": " + c.Command,
		add:    func(b []byte) ([]byte, error) { return each(b, jsonAppend) },
		remove: func(b []byte) ([]byte, error) { return each(b, jsonDrop) },
	}
	t.has = func(b []byte) bool {
		out, err := t.add(b)
		return err == nil && string(out) == string(b)
	}
	t.present = func(b []byte) bool {
		out, err := t.remove(b)
		return err == nil && string(out) != string(b)
	}
	return t
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
