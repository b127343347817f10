package install

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// pluginMark says deja wrote an OpenCode plugin file.
const pluginMark = "// written by 'deja install --hooks'; 'deja install --hooks --uninstall' removes it"

// OpenCodePlugin is the file name of deja's OpenCode plugin.
const OpenCodePlugin = "deja.js"

// openCodeHooks is OpenCode's hook: OpenCode has no command hooks, only
// plugins (JavaScript modules it loads from ~/.config/opencode/plugins,
// or a project's .opencode/plugins), so deja's is a small plugin that runs
// 'deja hook opencode' at the moments a plugin sees: a session's first
// message (its start) and every message (the prompt), and before each tool
// (the file it edits, the command it runs). A plugin adds context through
// the system prompt of the next model call
// (experimental.chat.system.transform), so each answer goes there, once;
// before a compaction (experimental.session.compacting) what the session
// asked and did so far goes into the compaction's context.
func openCodeHooks(env Env) []Target {
	dir := filepath.Join(env.ConfigDir, "opencode", "plugins")
	if env.ProjectScope {
		dir = filepath.Join(env.Project, ".opencode", "plugins")
	}
	deja, _ := json.Marshal(env.Deja)
	text := []byte(strings.Replace(openCodePluginText, "DEJA_BINARY", string(deja), 1))
	return []Target{ownedFile(env, "opencode", filepath.Join(dir, OpenCodePlugin), "plugin deja: deja hook opencode", text, pluginMark,
		"a plugin of your own named deja.js is there; it is left alone")}
}

// openCodePluginText is the plugin; DEJA_BINARY becomes the JSON string
// of deja's path. It waits for deja at most 5 s, without blocking the agent, (deja itself gives up
// sooner and prints nothing), never throws into OpenCode, and holds at
// most one pending answer per session.
const openCodePluginText = pluginMark + `
// deja: memory of past agent sessions, for OpenCode (see 'deja hook --help').
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"

const DEJA = DEJA_BINARY

function ask(input) {
  return new Promise((resolve) => {
    try {
      const child = execFile(DEJA, ["hook", "opencode"], { encoding: "utf8", timeout: 5000 }, (err, stdout) => {
        if (err || !stdout) return resolve("")
        try {
          resolve(JSON.parse(stdout)?.hookSpecificOutput?.additionalContext ?? "")
        } catch {
          resolve("")
        }
      })
      child.stdin.end(JSON.stringify(input))
    } catch {
      resolve("")
    }
  })
}

// history is where OpenCode keeps its sessions: the database, or the
// storage tree of releases before it.
function history() {
  const dir = join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "opencode")
  const db = join(dir, "opencode.db")
  return existsSync(db) ? db : join(dir, "storage")
}

export const DejaPlugin = async ({ directory, worktree }) => {
  const cwd = worktree && worktree !== "/" ? worktree : directory
  const started = new Set()
  const pending = new Map()
  let last
  const hold = (session, text) => {
    if (!text) return
    const now = pending.get(session)
    pending.set(session, now ? now + "\n\n" + text : text)
  }
  return {
    "chat.message": async (input, output) => {
      const session = input.sessionID
      last = session
      if (!started.has(session)) {
        started.add(session)
        hold(session, await ask({ hook_event_name: "SessionStart", source: "startup", session_id: session, cwd }))
      }
      const prompt = (output.parts ?? []).filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n")
      if (prompt.trim()) hold(session, await ask({ hook_event_name: "UserPromptSubmit", session_id: session, cwd, prompt }))
    },
    "tool.execute.before": async (input, output) => {
      hold(input.sessionID, await ask({ hook_event_name: "PreToolUse", session_id: input.sessionID, cwd, tool_name: input.tool, tool_input: output.args ?? {} }))
    },
    "experimental.session.compacting": async (input, output) => {
      const text = await ask({ hook_event_name: "SessionStart", source: "compact", session_id: input.sessionID, cwd, transcript_path: history() })
      if (text) output.context.push(text)
    },
    "experimental.chat.system.transform": async (input, output) => {
      const session = input.sessionID ?? last
      const text = pending.get(session)
      if (!text) return
      pending.delete(session)
      output.system.push(text)
    },
  }
}
`
