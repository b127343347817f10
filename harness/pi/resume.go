package pi

import (
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// ResumeCommand reopens a session with its agent's own command:
//
//   - pi: `pi --session <id>` run in the project; pi takes an id (a prefix
//     of one) and finds it among the project's sessions (main.ts,
//     resolveSessionPath). Without a project it searches every project
//     and offers to fork the session into the current folder.
//   - omp: `omp --resume <id>` run in the project (cli/flag-tables.ts:
//     --resume takes an id or a path).
//   - OpenClaw: `openclaw tui --session <key>`, for the key that holds the
//     session now in the sessions.json of the state folder that holds the
//     session's workspace (its project). OpenClaw reopens a key, not a
//     transcript: a session its key has since left (a reset, a newer
//     session) cannot be reopened, and none is printed for it.
func (Reader) ResumeCommand(id, project string) string {
	switch {
	case strings.HasPrefix(id, Pi.Prefix()):
		return inProject(project, "pi --session "+harness.ShellQuote(strings.TrimPrefix(id, Pi.Prefix())))
	case strings.HasPrefix(id, Omp.Prefix()):
		return inProject(project, "omp --resume "+harness.ShellQuote(strings.TrimPrefix(id, Omp.Prefix())))
	case strings.HasPrefix(id, OpenClaw.Prefix()):
		key := openClawKey(strings.TrimPrefix(id, OpenClaw.Prefix()), project)
		if key == "" {
			return ""
		}
		return "openclaw tui --session " + harness.ShellQuote(key)
	}
	return ""
}

// ResumeRefusal says why a session has no resume command.
func (Reader) ResumeRefusal(id, project string) string {
	if strings.HasPrefix(id, OpenClaw.Prefix()) {
		return "OpenClaw reopens a session by the key its sessions.json gives it, and no key there holds this session now (it was reset, or its state folder is not where its workspace says: run 'openclaw sessions' to list the keys)"
	}
	return "its session ID is not one the agent takes"
}

func inProject(project, cmd string) string {
	if strings.HasSuffix(cmd, " ") || strings.HasSuffix(cmd, "''") {
		return ""
	}
	if project == "" {
		return cmd
	}
	return "cd " + harness.ShellQuote(project) + " && " + cmd
}

// openClawKey finds the key holding the session: OpenClaw keeps an
// agent's workspace in its state folder (<state>/workspace,
// <state>/workspace-<agentId>), and that folder's agents/*/sessions/
// sessions.json maps keys to sessions.
func openClawKey(sessionID, workspace string) string {
	if !validSessionID(sessionID) || workspace == "" {
		return ""
	}
	// A thread's transcript belongs to its session's key.
	sessionID, _, _ = strings.Cut(sessionID, "-topic-")
	state := filepath.Dir(filepath.FromSlash(strings.ReplaceAll(workspace, `\`, "/")))
	stores, _ := filepath.Glob(filepath.Join(state, "agents", "*", "sessions"))
	for _, dir := range stores {
		if key, ok := LoadStore(dir).Key(sessionID); ok && validKey(key) {
			return key
		}
	}
	return ""
}

// validKey reports a session key deja prints in a command: at most 200
// printable ASCII characters without spaces or quotes.
func validKey(k string) bool {
	if k == "" || len(k) > 200 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c >= 0x7f || c == '\'' || c == '"' || c == '\\' || c == '`' {
			return false
		}
	}
	return true
}
