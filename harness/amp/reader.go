package amp

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Amp's name among the harnesses.
const Name = "amp"

// IDPrefix starts every Amp session ID; the thread id (T-<uuid>) follows.
const IDPrefix = Name + "-"

// Reader is Amp as a harness.
type Reader struct{}

var (
	_ harness.FileReader    = Reader{}
	_ harness.ResumeRefuser = Reader{}
)

// Name returns "amp".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shape this reader makes:
// amp-T-<uuid>.
func (Reader) ValidID(id string) bool {
	tid, ok := strings.CutPrefix(id, IDPrefix)
	return ok && validThreadID(tid)
}

// validThreadID reports Amp's thread id shape, T- and a UUID.
func validThreadID(tid string) bool {
	u, ok := strings.CutPrefix(tid, "T-")
	return ok && harness.IsUUID(u)
}

// Discover finds the thread files; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

// Parse parses one thread file; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

var errNotThread = errors.New("not an Amp thread (a JSON object with an id T-<uuid> and messages, in ~/.local/share/amp/threads/T-<uuid>.json)")

// Sniff accepts a .json file that opens with an object whose top level
// holds messages (or, in a head cut short, created) and whose id is a
// thread id, T-<uuid>, or whose name is one. No other agent names its
// sessions T-<uuid>.
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Ext(path) != ".json" {
		return errNotThread
	}
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if len(h) == 0 || h[0] != '{' {
		return errNotThread
	}
	keys := harness.TopKeys(h, "id", "messages", "created")
	named := validThreadID(strings.TrimSuffix(filepath.Base(path), ".json"))
	if keys[0] && (keys[1] || keys[2]) && (named || harness.AnyValue(h, "id", validThreadID)) {
		return nil
	}
	if named && keys[1] {
		return nil
	}
	return errNotThread
}

// ResumeCommand is `amp threads continue <T-id>`, run in the thread's
// project when it is known. Amp keeps threads on ampcode.com too, so the
// command needs the account that wrote the thread.
func (Reader) ResumeCommand(id, project string) string {
	tid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || !validThreadID(tid) {
		return ""
	}
	cmd := "amp threads continue " + tid
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}

// ResumeRefusal says why a session has no resume command.
func (Reader) ResumeRefusal(id, project string) string {
	return "its ID is not an Amp thread id (T-<uuid>); Amp reopens a thread with amp threads continue <thread id>, or from the thread list on ampcode.com"
}
