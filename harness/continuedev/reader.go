package continuedev

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Continue's name among the harnesses. The package is continuedev
// because continue is a Go keyword.
const Name = "continue"

// IDPrefix starts every Continue session ID.
const IDPrefix = Name + "-"

// Reader is Continue (its VS Code and JetBrains extensions and its cn
// CLI, which share one session store) as a harness.
type Reader struct{}

var (
	_ harness.FileReader    = Reader{}
	_ harness.ResumeRefuser = Reader{}
)

// Name returns "continue".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shape this reader makes:
// continue-<sessionId>, the sessionId a UUID (what the extensions and cn
// make) or a token of letters, digits, '_' and '-' (what `cn serve --id`
// names a session by).
func (Reader) ValidID(id string) bool {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	return ok && validSessionID(sid)
}

func validSessionID(sid string) bool { return harness.IsUUID(sid) || harness.IsToken(sid) }

// Discover finds the session files; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

// Parse parses one session file; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

// errNotSession is Sniff's answer for a file that is not a Continue
// session.
var errNotSession = errors.New("not a Continue session (a JSON object with sessionId and history, in ~/.continue/sessions/<sessionId>.json)")

// Sniff accepts a .json file, other than the sessions.json index, that
// opens with a Continue session object: its top level holds two of
// sessionId, workspaceDirectory and history (every build since November
// 2024 writes sessionId, title and workspaceDirectory before history). Builds
// of 2024 wrote history first, on one line, so a head cut inside it holds
// no other key: such a file is taken when history's first entry is an
// object with a message. Gemini CLI's legacy recordings hold sessionId
// but neither key; Cline's SDK files hold sessionId and messages.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Ext(path) != ".json" || filepath.Base(path) == indexFile {
		return errNotSession
	}
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if len(h) == 0 || h[0] != '{' {
		return errNotSession
	}
	held := harness.TopKeys(h, "sessionId", "history", "workspaceDirectory")
	if held[0] && held[1] || held[0] && held[2] || held[1] && held[2] {
		return nil
	}
	if historyFirst(h) {
		return nil
	}
	return errNotSession
}

// historyFirst reports an object whose first key is history, an array
// whose first element is an object whose first key is message: the
// opening `{"history":[{"message":` with any whitespace between.
func historyFirst(h []byte) bool {
	for _, tok := range []string{"{", `"history"`, ":", "[", "{", `"message"`, ":"} {
		h = bytes.TrimLeft(h, " \t\r\n")
		if !bytes.HasPrefix(h, []byte(tok)) {
			return false
		}
		h = h[len(tok):]
	}
	return true
}

// ResumeCommand is `cn --fork <sessionId>`, run in the session's project
// when it is known. Continue has no resume by ID: `cn --resume` reopens
// only the session written last, and the extensions reopen a session
// from their history panel. --fork loads the session by its ID and
// carries its whole history into a new session, in the same store the
// extensions write (extensions/cli/src/commands/chat.ts
// initializeChatHistory; session.ts loadSessionById).
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || !validSessionID(sid) {
		return ""
	}
	cmd := "cn --fork " + harness.ShellQuote(sid)
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}

// ResumeRefusal says why a session has no resume command.
func (Reader) ResumeRefusal(id, project string) string {
	return "its session ID is not one Continue names a session file by; a Continue session reopens from the history panel of the extension that wrote it"
}
