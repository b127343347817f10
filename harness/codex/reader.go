package codex

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// Name is Codex CLI's name among the harnesses.
const Name = "codex"

// Reader is Codex CLI as a harness.
type Reader struct{}

var (
	_ harness.FileReader = Reader{}
	_ harness.Decoder    = Reader{}
	_ harness.Resumer    = Reader{}
	_ harness.Prescanner = Reader{}
)

// Name returns "codex".
func (Reader) Name() string { return Name }

// Streams reports a .jsonl rollout: parsed as its lines are read and
// handed over a piece of finished turns at a time. A .jsonl.zst is
// decoded and read whole (its decoded size is bounded), and a legacy
// .json is one object. The prompt history is read whole.
func (Reader) Streams(path string, head []byte) bool {
	return strings.HasSuffix(path, ".jsonl") && !isPromptHistory(path) && !bytes.HasPrefix(head, zstdMagic)
}

// Prescan tells whether the rollout logs the user's messages as events
// ("events"), which decides the stream its messages are read from (see
// Parse), as hasUserEvents does for a rollout held whole.
func (Reader) Prescan(r io.Reader) (string, error) {
	found := ""
	err := harness.LineHeads(r, func(head []byte) bool {
		if !bytes.Contains(head, []byte("user_message")) {
			return false
		}
		if typ, payload := lineHead(head); string(typ) == "event_msg" && string(payload) == "user_message" {
			found = prescannedEvents
		}
		return found != ""
	})
	return found, err
}

// prescannedEvents is what Prescan finds of a rollout with user_message
// events.
const prescannedEvents = "events"

// Stream starts the parse of a rollout that Streams, its lines decoded
// without sharing their bytes, its messages read from the stream Prescan
// chose.
func (Reader) Stream(opts harness.ParseOptions) harness.LineParser {
	return newParser(opts, opts.Prescanned == prescannedEvents, 0)
}

// Parse parses one rollout (see the package function Parse), or the
// prompt history, history.jsonl, by its name (parsePrompts).
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	if isPromptHistory(opts.Path) {
		return parsePrompts(data, opts)
	}
	return Parse(data, opts)
}

var (
	errNotRollout = errors.New("not a Codex rollout")
	zstdMagic     = []byte{0x28, 0xB5, 0x2F, 0xFD}
)

// maxWindow bounds the history window a .zst frame may ask the decoder
// to keep (the decoder allocates it): Codex's compression level uses a few
// MB, and zstd's own levels at most 128 MB without --long.
const maxWindow = 64 << 20

// Sniff accepts a rollout-*.jsonl.zst that starts with zstd's magic, a
// .jsonl whose first line is session metadata (a wrapped session_meta
// line, or a flat file's {id, timestamp, instructions}), and a legacy
// .json object that opens with its session (§2.2); and the prompt
// history, history.jsonl, whose first line has session_id and text.
func (Reader) Sniff(path string, head []byte) error {
	if isPromptHistory(path) {
		if sniffPrompts(head) {
			return nil
		}
		return errNotRollout
	}
	if strings.HasSuffix(path, ".jsonl.zst") {
		if bytes.HasPrefix(head, zstdMagic) || firstLineIsMeta(head) {
			return nil
		}
		return errNotRollout
	}
	if strings.HasSuffix(path, ".json") && isLegacy(head) && hasItems(head) {
		return nil // the first generation: one object (§2.2)
	}
	if !strings.HasSuffix(path, ".jsonl") || !firstLineIsMeta(head) {
		return errNotRollout
	}
	return nil
}

func firstLineIsMeta(head []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n"), []byte("\n"))
	if !bytes.HasPrefix(first, []byte("{")) {
		return false
	}
	var l struct {
		Type         string          `json:"type"`
		ID           string          `json:"id"`
		Timestamp    string          `json:"timestamp"`
		Instructions json.RawMessage `json:"instructions"`
	}
	if json.Unmarshal(first, &l) != nil {
		// A meta line longer than the head (instructions run to kilobytes):
		// judged by the keys before the cut.
		if typ, _ := lineHead(first); string(typ) == "session_meta" {
			return true
		}
		held := harness.TopKeys(first, "id", "instructions")
		return held[0] && held[1]
	}
	return l.Type == "session_meta" || (l.Type == "" && l.ID != "" && l.Timestamp != "" && l.Instructions != nil)
}

// Decode decompresses a .jsonl.zst rollout as it is read, which Codex
// writes for rollouts idle a week (§2.1); other files read as they are.
// The indexer counts what it decodes (harness.MaxDecoded).
func (Reader) Decode(path string, r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(zstdMagic)); !bytes.Equal(head, zstdMagic) {
		return io.NopCloser(br), nil
	}
	dec, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return nil, fmt.Errorf("not a readable zstd rollout: %w", err)
	}
	return zstdRollout{dec}, nil
}

// zstdRollout is a rollout being decompressed, its errors saying so.
type zstdRollout struct{ dec *zstd.Decoder }

func (z zstdRollout) Read(p []byte) (int, error) {
	n, err := z.dec.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("not a readable zstd rollout: %w", err)
	}
	return n, err
}

func (z zstdRollout) Close() error {
	z.dec.Close()
	return nil
}

// ResumeCommand is `codex resume <id>`, run in the session's project.
func (Reader) ResumeCommand(id, project string) string {
	sid, ok := strings.CutPrefix(id, "codex-")
	if !ok || !harness.IsUUID(sid) {
		return ""
	}
	cmd := "codex resume " + sid
	if project != "" {
		cmd = "cd " + harness.ShellQuote(project) + " && " + cmd
	}
	return cmd
}
