package antigravity

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Antigravity's name among the harnesses.
const Name = "antigravity"

// IDPrefix starts every session ID: antigravity-<conversation uuid>.
const IDPrefix = Name + "-"

// Reader is Antigravity as a harness: each conversation's brain folder is
// a store read whole, one session with a marker of its files' latest
// change.
type Reader struct{}

var (
	_ harness.WholeReader   = Reader{}
	_ harness.ResumeRefuser = Reader{}
)

// Name returns "antigravity".
func (Reader) Name() string { return Name }

// ValidID reports an ID antigravity-<uuid>, the conversation's own id.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	return ok && harness.IsUUID(rest)
}

// Discover finds the conversations; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var errNotAntigravity = errors.New("not an Antigravity conversation (brain/<uuid> with .system_generated in it)")

// Sniff accepts a directory named by a UUID that holds .system_generated:
// a conversation's brain folder. Files, the encrypted .pb included, are
// never Antigravity histories deja reads.
func (Reader) Sniff(path string, head []byte) error {
	if !harness.IsUUID(filepath.Base(path)) {
		return errNotAntigravity
	}
	if fi, err := os.Stat(filepath.Join(path, generated)); err != nil || !fi.IsDir() {
		return errNotAntigravity
	}
	return nil
}

// Read reads the conversation whose brain folder is path; see
// ReadConversation.
func (Reader) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	return ReadConversation(ctx, path, opts)
}

// ResumeCommand is always empty: see ResumeRefusal.
func (Reader) ResumeCommand(id, project string) string { return "" }

// ResumeRefusal says why an Antigravity conversation has no command.
func (Reader) ResumeRefusal(id, project string) string {
	return "an Antigravity conversation reopens only from the Agent Manager of the Antigravity editor, which decrypts it"
}
