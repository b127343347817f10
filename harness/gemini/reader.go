package gemini

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Name is Gemini CLI's name among the harnesses.
const Name = "gemini"

// Reader is Gemini CLI as a harness: it discovers chat recordings with
// Discover and parses them with Parse, the project recovered by
// ProjectResolver.
type Reader struct{}

var _ harness.FileReader = Reader{}

// Name returns "gemini".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shape Gemini CLI documents:
// gemini-<sessionId>, the header's sessionId a UUID; or, for a recording
// whose header is lost, the name deja gives it from its file (the first
// eight of the sessionId's hex digits in session-<time>-<8>.jsonl), which
// must be letters, digits, '_' and '-' alone.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	return ok && (harness.IsUUID(rest) || harness.IsToken(rest))
}

// Discover finds the recordings; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

// errNotChat is Sniff's answer for a file that is not a chat recording.
var errNotChat = errors.New("not a Gemini CLI chat recording (a JSON file with sessionId and projectHash under .gemini/tmp/<project>/chats)")

// Sniff accepts a JSON or JSONL file that opens with an object holding the
// recording's header fields, sessionId and projectHash; Claude Code's lines
// carry a sessionId too, but never a projectHash.
func (Reader) Sniff(path string, head []byte) error {
	switch filepath.Ext(path) {
	case ".json", ".jsonl":
	default:
		return errNotChat
	}
	h := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if held := harness.TopKeys(h, "sessionId", "projectHash"); !held[0] || !held[1] {
		return errNotChat
	}
	return nil
}

// Parse parses one recording; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, options(opts))
}

func options(opts harness.ParseOptions) Options {
	return Options{
		Path:         opts.Path,
		Offset:       opts.Offset,
		FirstOrdinal: opts.FirstOrdinal,
		Project:      ProjectResolver(opts.Path),
	}
}

var (
	_ harness.LineStreamer = Reader{}
	_ harness.PieceParser  = (*parser)(nil)
)

// Streams reports a JSONL recording; the legacy single JSON object is
// read whole.
func (Reader) Streams(path string, head []byte) bool { return filepath.Ext(path) == ".jsonl" }

// Stream starts the parse of a JSONL recording, line by line: one that
// hands over its finished turns when opts carry what Prescan found.
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser {
	p := newParser(options(opts))
	if fin, head, err := openFinal(opts.Prescanned); err == nil {
		p.whole, p.fin, p.head = nil, fin, head
	}
	return p
}

var _ harness.Resumer = Reader{}

// ResumeCommand is `gemini --resume <sessionId>` run in the session's
// project: Gemini CLI keeps sessions per project, so without the project
// there is no command that finds it.
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, IDPrefix)
	if !ok || sid == "" || project == "" || strings.ContainsAny(sid, "/ ") {
		return ""
	}
	return "cd " + harness.ShellQuote(project) + " && gemini --resume " + harness.ShellQuote(sid)
}
