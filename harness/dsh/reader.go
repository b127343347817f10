package dsh

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/harness"
)

// Name is DeepSeek Harness's name among the harnesses.
const Name = "dsh"

// IDPrefix starts every dsh session ID.
const IDPrefix = Name + "-"

// Reader is DeepSeek Harness as a harness.
type Reader struct{}

var (
	_ harness.FileReader    = Reader{}
	_ harness.Decoder       = Reader{}
	_ harness.ResumeRefuser = Reader{}
)

// Name returns "dsh".
func (Reader) Name() string { return Name }

// Discover finds the session logs; see the package function Discover.
func (Reader) Discover(opts harness.DiscoverOptions) harness.Discovery { return Discover(opts) }

// Parse parses one session log; see the package function Parse.
func (Reader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	return Parse(data, opts)
}

var (
	errNotLog = errors.New("not a DeepSeek Harness session log (session[.vN].jsonl[.zstd] under ~/.dsh/sessions/<project>/<session>, opening with a session header)")
	zstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}
)

// Sniff accepts a file named as dsh names a log generation whose first
// line is a dsh header: type "session" with createdAt, which Pi's
// session header (type "session" with a timestamp) never holds; or, for
// a .zstd log not yet decoded, zstd's magic.
func (Reader) Sniff(path string, head []byte) error {
	_, compressed, ok := generationOf(filepath.Base(path))
	if !ok {
		return errNotLog
	}
	if compressed && bytes.HasPrefix(head, zstdMagic) {
		return nil
	}
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n"), []byte("\n"))
	held := harness.TopKeys(first, "type", "createdAt")
	if !held[0] || !held[1] || !harness.AnyValue(first, "type", func(v string) bool { return v == "session" }) {
		return errNotLog
	}
	return nil
}

// generationOf reports whether name is a log generation's file name,
// session.jsonl (v0) or session.v<N>.jsonl (N from 1, no leading zero, as
// sessionFormatLogFilename writes it), each with .zstd when compressed,
// and returns its version and whether it is compressed.
func generationOf(name string) (version int, compressed, ok bool) {
	name, compressed = strings.CutSuffix(name, ".zstd")
	stem, found := strings.CutSuffix(name, ".jsonl")
	if !found {
		return 0, false, false
	}
	if stem == "session" {
		return 0, compressed, true
	}
	v, found := strings.CutPrefix(stem, "session.v")
	if !found || v == "" || v[0] == '0' || len(v) > 6 {
		return 0, false, false
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, false, false
	}
	return n, compressed, true
}

// maxWindow bounds the history window a frame may ask the decoder to
// keep: dsh compresses with Node's zstd at its default level, whose
// window is a few MB.
const maxWindow = 64 << 20

// Decode decompresses a .zstd log as it is read; a log dsh wrote with
// compression "none" reads as it is. The indexer counts what it decodes
// (harness.MaxDecoded). The log is a run of frames, one per append batch;
// a final frame cut short (dsh is writing it, or died writing it) ends
// the log where its decoded bytes end, so the lines before it are read
// and its unfinished last line is left for the next index, as dsh's own
// reader does; damage before it is an error.
func (Reader) Decode(path string, r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(zstdMagic)); !bytes.Equal(head, zstdMagic) {
		return io.NopCloser(br), nil
	}
	dec, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return nil, fmt.Errorf("not a readable zstd session log: %w", err)
	}
	return zstdLog{dec}, nil
}

// zstdLog is a log being decompressed, its errors saying so.
type zstdLog struct{ dec *zstd.Decoder }

func (z zstdLog) Read(p []byte) (int, error) {
	n, err := z.dec.Read(p)
	switch {
	case err == nil || errors.Is(err, io.EOF):
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = io.EOF // a torn final frame: the log ends here
	default:
		err = fmt.Errorf("not a readable zstd session log: %w", err)
	}
	return n, err
}

func (z zstdLog) Close() error {
	z.dec.Close()
	return nil
}

// ValidID reports a session ID of the shape deja gives dsh sessions:
// dsh-<uuid> for dsh's own session-<uuid> ids, else dsh- and the id as
// dsh wrote it when it is 1 to 64 letters, digits, '_' and '-'.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	return ok && (harness.IsUUID(rest) || harness.IsToken(rest))
}

// ResumeCommand is always "": dsh 0.1.1 ships no command that reopens a
// session (see ResumeRefusal).
func (Reader) ResumeCommand(id, project string) string { return "" }

// ResumeRefusal says why no dsh session has a resume command.
func (Reader) ResumeRefusal(id, project string) string {
	return "DeepSeek Harness has no command that reopens a session: its headless app runs one task and exits, and a conversation is reopened from the web app's session list"
}
