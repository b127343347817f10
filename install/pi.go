package install

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// PiExtension is the file name of deja's pi extension.
const PiExtension = "deja.ts"

// piHooks is pi's hook: pi has no command hooks, only extensions
// (TypeScript modules it loads from ~/.pi/agent/extensions, or a project's
// .pi/extensions), so deja's is a small extension that runs 'deja hook
// pi' when the user submits a prompt (before_agent_start) and hands pi the
// answer as a message for the model: at a session's first prompt what
// earlier sessions of the project did, at the first prompt after a
// compaction (session_compact) what the session did so far, read from its
// own session file, and at each prompt the related turns of other
// sessions. Before an edit, a write or a shell command (tool_call) it asks
// what happened to that file or command before, while the tool runs, and
// adds the answer to the tool's result (tool_result), which the model
// reads next: pi's tool_call can only block or change a call.
func piHooks(env Env) []Target {
	dir := filepath.Join(env.piDir(), "extensions")
	if env.ProjectScope {
		dir = filepath.Join(env.Project, ".pi", "extensions")
	}
	deja, _ := json.Marshal(env.Deja)
	text := []byte(strings.Replace(piExtensionText, "DEJA_BINARY", string(deja), 1))
	return []Target{ownedFile(env, "pi", filepath.Join(dir, PiExtension), "extension deja: deja hook pi", text, pluginMark,
		"an extension of your own named deja.ts is there; it is left alone")}
}

// piExtensionText is the extension, plain JavaScript that pi's loader
// (jiti) reads as TypeScript; DEJA_BINARY becomes the JSON string of
// deja's path. It waits for deja at most 5 s, without blocking the agent, and never throws into pi.
const piExtensionText = pluginMark + `
// deja: memory of past agent sessions, for pi (see 'deja hook --help').
import { execFile } from "node:child_process"

const DEJA = DEJA_BINARY

function ask(input) {
  return new Promise((resolve) => {
    try {
      const child = execFile(DEJA, ["hook", "pi"], { encoding: "utf8", timeout: 5000 }, (err, stdout) => {
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

const TOOLS = new Set(["edit", "write", "bash"])

export default function (pi) {
  const started = new Set()
  const compacted = new Set()
  const pending = new Map()
  const where = (ctx) => ({
    session: ctx?.sessionManager?.getSessionId?.() ?? "",
    cwd: ctx?.cwd ?? process.cwd(),
  })
  pi.on("before_agent_start", async (event, ctx) => {
    const { session, cwd } = where(ctx)
    const parts = []
    if (!started.has(session)) {
      started.add(session)
      parts.push(await ask({ hook_event_name: "SessionStart", source: "startup", session_id: session, cwd }))
    }
    if (compacted.has(session)) {
      compacted.delete(session)
      const transcript_path = ctx?.sessionManager?.getSessionFile?.() ?? ""
      parts.push(await ask({ hook_event_name: "SessionStart", source: "compact", session_id: session, cwd, transcript_path }))
    }
    if (event?.prompt?.trim()) parts.push(await ask({ hook_event_name: "UserPromptSubmit", session_id: session, cwd, prompt: event.prompt }))
    const content = parts.filter(Boolean).join("\n\n")
    if (!content) return
    return { message: { customType: "deja", content, display: false } }
  })
  pi.on("session_compact", async (_event, ctx) => {
    compacted.add(where(ctx).session)
  })
  pi.on("tool_call", async (event, ctx) => {
    if (!TOOLS.has(event?.toolName) || !event?.toolCallId) return
    const { session, cwd } = where(ctx)
    pending.set(event.toolCallId, ask({ hook_event_name: "PreToolUse", session_id: session, cwd, tool_name: event.toolName, tool_input: event.input ?? {} }))
  })
  pi.on("tool_result", async (event) => {
    const asked = pending.get(event?.toolCallId)
    if (!asked) return
    pending.delete(event.toolCallId)
    const text = await asked
    if (!text) return
    return { content: [...(Array.isArray(event.content) ? event.content : []), { type: "text", text }] }
  })
}
`
