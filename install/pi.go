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
// earlier sessions of the project did, and at each prompt the related
// turns of other sessions.
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

export default function (pi) {
  const started = new Set()
  pi.on("before_agent_start", async (event, ctx) => {
    const session = ctx?.sessionManager?.getSessionId?.() ?? ""
    const cwd = ctx?.cwd ?? process.cwd()
    const parts = []
    if (!started.has(session)) {
      started.add(session)
      parts.push(await ask({ hook_event_name: "SessionStart", source: "startup", session_id: session, cwd }))
    }
    if (event?.prompt?.trim()) parts.push(await ask({ hook_event_name: "UserPromptSubmit", session_id: session, cwd, prompt: event.prompt }))
    const content = parts.filter(Boolean).join("\n\n")
    if (!content) return
    return { message: { customType: "deja", content, display: false } }
  })
}
`
