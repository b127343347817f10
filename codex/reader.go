package codex

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/segmentio/encoding/json"

	"github.com/deja-dev/deja/harness"
)

// Name is Codex CLI's name among the harnesses.
const Name = "codex"

// Reader is Codex CLI as a harness.
type Reader struct{}

var (
	_ harness.FileReader = Reader{}
	_ harness.Decoder    = Reader{}
	_ harness.Resumer    = Reader{}
)

// Name returns "codex".
func (Reader) Name() string { return Name }

// Parse parses one rollout; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

var (
	errNotRollout = errors.New("not a Codex rollout")
	zstdMagic     = []byte{0x28, 0xB5, 0x2F, 0xFD}
)

// maxDecoded bounds a decompressed rollout, so a hostile .zst cannot take
// the machine's memory; the largest rollouts seen are tens of MB.
const maxDecoded = 1 << 30

// Sniff accepts a rollout-*.jsonl.zst that starts with zstd's magic, a
// .jsonl whose first line is session metadata (a wrapped session_meta
// line, or a flat file's {id, timestamp, instructions}), and a legacy
// .json object that opens with its session (§2.2).
func (Reader) Sniff(path string, head []byte) error {
	if strings.HasSuffix(path, ".jsonl.zst") {
		if bytes.HasPrefix(head, zstdMagic) || firstLineIsMeta(head) {
			return nil
		}
		return errNotRollout
	}
	if strings.HasSuffix(path, ".json") && isLegacy(head) && bytes.Contains(head, []byte(`"items"`)) {
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
		// judged by its opening keys, as Codex writes them.
		return bytes.Contains(first[:min(len(first), 200)], []byte(`"type":"session_meta"`)) ||
			(bytes.HasPrefix(first, []byte(`{"id":"`)) && bytes.Contains(first, []byte(`"instructions":`)))
	}
	return l.Type == "session_meta" || (l.Type == "" && l.ID != "" && l.Timestamp != "" && l.Instructions != nil)
}

// Decode decompresses a .jsonl.zst rollout, which Codex writes for
// rollouts idle a week (§2.1); other files are returned as they are.
func (Reader) Decode(path string, raw []byte) ([]byte, error) {
	if !bytes.HasPrefix(raw, zstdMagic) {
		return raw, nil
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecoded))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	out, err := dec.DecodeAll(raw, nil)
	if err != nil {
		return nil, fmt.Errorf("not a readable zstd rollout: %w", err)
	}
	return out, nil
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
