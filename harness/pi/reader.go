package pi

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// Name is the harness's name: one reader serves pi, OpenClaw and omp,
// whose sessions its IDs tell apart (see Agent).
const Name = "pi"

// Agent is one of the three agents that write pi's session format.
type Agent string

// The agents, each the prefix of its sessions' IDs ("pi-<id>",
// "openclaw-<id>", "omp-<id>").
const (
	Pi       Agent = "pi"
	OpenClaw Agent = "openclaw"
	Omp      Agent = "omp"
)

// Prefix is what the IDs of the agent's sessions start with.
func (a Agent) Prefix() string { return string(a) + "-" }

// AgentOf tells which agent wrote the transcript at path, by its place:
// OpenClaw keeps transcripts in <state>/agents/<agentId>/sessions/, omp
// below a .omp folder (or $XDG_DATA_HOME/omp), and every other place is
// pi's. A pi folder moved by PI_CODING_AGENT_DIR, which omp honours too,
// is therefore read as pi's.
func AgentOf(path string) Agent {
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
	n := len(parts)
	if n >= 4 && parts[n-2] == "sessions" && parts[n-4] == "agents" {
		return OpenClaw
	}
	for i, p := range parts[:max(n-1, 0)] {
		if p == ".omp" {
			return Omp
		}
		if p == "omp" && i+1 < n-1 && (parts[i+1] == "sessions" || parts[i+1] == "profiles") {
			return Omp
		}
	}
	return Pi
}

// Reader is pi, OpenClaw and omp as one harness.
type Reader struct{}

var (
	_ harness.FileReader   = Reader{}
	_ harness.LineStreamer = Reader{}
	_ harness.Resumer      = Reader{}
)

// Name returns "pi".
func (Reader) Name() string { return Name }

// ValidID reports a session ID of the shape the three agents give their
// sessions: the agent's prefix, then the header's id, a UUID for pi and
// omp and, for OpenClaw, any id its SAFE_SESSION_ID_RE allows (a letter or
// digit, then up to 127 letters, digits, '.', '_' and '-').
func (Reader) ValidID(id string) bool {
	for _, a := range []Agent{Pi, OpenClaw, Omp} {
		if rest, ok := strings.CutPrefix(id, a.Prefix()); ok {
			return validSessionID(rest)
		}
	}
	return false
}

func validSessionID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// Discover finds the three agents' transcripts; see the package function.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

var errNotSession = errors.New("not a pi, OpenClaw or omp session (a .jsonl file whose first line is {\"type\":\"session\",\"id\":…})")

// Sniff accepts a .jsonl file whose first line is a session header: an
// object whose type is "session" and which holds an id. No other agent's
// transcript opens so (a Claude Code line names its session sessionId, a
// Codex rollout's first type is session_meta).
func (Reader) Sniff(path string, head []byte) error {
	if filepath.Ext(path) != ".jsonl" {
		return errNotSession
	}
	first, _, _ := strings.Cut(string(head), "\n")
	first = strings.TrimPrefix(strings.TrimSpace(first), "\ufeff")
	var typ string
	var id bool
	sc := jsonscan.New([]byte(first))
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			typ = sc.String()
		case "id":
			id = true
			sc.Skip()
		default:
			return false
		}
		return true
	})
	if typ != "session" || !id {
		return errNotSession
	}
	return nil
}

// Parse parses one transcript; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, options(opts))
}

// Streams reports a .jsonl transcript, which is read a line at a time.
func (Reader) Streams(path string, head []byte) bool { return filepath.Ext(path) == ".jsonl" }

// Stream starts the parse of a transcript fed to it line by line: one
// that hands over its finished turns when opts carry what Prescan found.
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser {
	p := newParser(options(opts))
	p.prescanned(opts.Prescanned)
	return p
}

// options are the package's Options for a transcript at opts.Path: its
// agent by its place and, for OpenClaw, its entry in the sessions.json
// beside it.
func options(opts harness.ParseOptions) Options {
	o := Options{Path: opts.Path, Offset: opts.Offset, FirstOrdinal: opts.FirstOrdinal, Agent: AgentOf(opts.Path)}
	if o.Agent == OpenClaw && opts.Path != "" {
		o.Store = LoadStore(filepath.Dir(opts.Path))
	}
	return o
}
