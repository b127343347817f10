package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/harness/note"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/serve"
)

const mcpLong = `Serve deja's memory to one agent over MCP on stdin and stdout. The agent
starts 'deja mcp' itself and gets ten tools, all read-only but remember:

  recall    past turns that match a query, by meaning or exact words
            (the fields of 'deja recall --json', and readable text)
  show      a session, or one turn of it, as Markdown
  sessions  recent sessions, optionally of one project
  related   before a task or a file: past turns about the task, and
            the turns that edited or discussed each file
  blame     the turns that edited a file, newest first, with the
            question behind each edit and whether it applied
  how       how this machine ran a command before, and how often
            each command line worked
  fix       what was run after an error until it stopped
  friction  errors failed commands hit in several sessions
  restore   the text a past edit of a file replaced
  remember  keep a note (a finding, a decision) that recall finds

It answers from the histories of every agent deja reads:

  HARNESSES

The store is opened once; an index run by another process is seen by the
next recall. Messages about the embedder go to stderr.

  claude mcp add deja -- deja mcp`

func newMcpCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve deja's memory to an agent over MCP (stdio)",
		Long:  withHarnesses(mcpLong),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCP(cmd, io)
		},
	}
}

func runMCP(cmd *cobra.Command, io *IO) error {
	ctx := cmd.Context()
	cfg, err := loadConfig(cmd, nil)
	if err != nil {
		return err
	}
	m, err := openMemory(ctx, io, cfg)
	if err != nil {
		return err
	}
	defer m.Store.Close()
	defer preload(ctx, io, m)()
	err = serve.NewMCPServer(m, versionString()).Run(ctx, stdioTransport(io.In, io.Out))
	if ctx.Err() != nil {
		return nil // stopped by a signal
	}
	return err
}

// stdioTransport speaks MCP over the command's streams rather than
// os.Stdin and os.Stdout, so tests can drive it through pipes. Lines pass
// through guardLines first: one bad line must not end the session.
func stdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go guardLines(in, pw, w)
	return &mcp.IOTransport{Reader: pr, Writer: nopWriteCloser{w}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// lockedWriter lets guardLines answer between the SDK's messages; each
// message is one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// maxMCPLine bounds one message, as the SDK bounds it.
const maxMCPLine = mcp.DefaultMaxLineLength

// guardLines copies the client's messages to the SDK line by line. A line
// that is not JSON is answered with a JSON-RPC parse error (-32700), one
// that is JSON but no JSON-RPC message with an invalid-request error
// (-32600), and neither is passed on: the SDK ends the session on either.
func guardLines(in io.Reader, sdk *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxMCPLine)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if reply := lineProblem(line, tooLong); reply != nil {
				if _, werr := out.Write(reply); werr != nil {
					sdk.CloseWithError(werr)
					return
				}
			} else if _, werr := sdk.Write(append(line, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			sdk.CloseWithError(err)
			return
		}
	}
}

// readLine reads up to a newline; past max bytes it discards the rest of
// the line and reports it too long.
func readLine(br *bufio.Reader, max int) ([]byte, bool, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= max {
			line = append(line, chunk...)
		} else {
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			return nil, true, err
		}
		if err != bufio.ErrBufferFull {
			return bytes.TrimRight(line, "\r\n"), false, err
		}
	}
}

// lineProblem is the JSON-RPC error answer to a line the SDK must not
// see, or nil for a line it may.
func lineProblem(line []byte, tooLong bool) []byte {
	switch {
	case tooLong:
		return rpcError(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: a message longer than %d bytes", maxMCPLine))
	case !json.Valid(line):
		return rpcError(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON; send one JSON-RPC 2.0 message per line")
	}
	var batch []json.RawMessage
	msgs := []json.RawMessage{line}
	if json.Unmarshal(line, &batch) == nil {
		if len(batch) == 0 {
			return rpcError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch")
		}
		msgs = batch
	}
	for _, m := range msgs {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			var probe struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal(m, &probe)
			return rpcError(probe.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: %v", err))
		}
	}
	return nil
}

type rpcErrorLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorBody    `json:"error"`
}

type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rpcError is one JSON-RPC error response line. An id that is missing or
// not a string or number is sent as null, as JSON-RPC 2.0 asks when the
// request's id cannot be told.
func rpcError(id json.RawMessage, code int, msg string) []byte {
	var v any
	if json.Unmarshal(id, &v) != nil {
		v = nil
	}
	switch v.(type) {
	case string, float64:
	default:
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(rpcErrorLine{JSONRPC: "2.0", ID: id, Error: rpcErrorBody{code, msg}})
	return append(data, '\n')
}

// preload loads the embedder's vectors in the background, so that the
// first recall of a long-running process is as fast as the next ones (or
// waits for this load instead of repeating it). The returned function
// waits for it, and must run before the store closes.
func preload(ctx context.Context, io *IO, m *serve.Memory) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if m.Embedder == nil {
			return
		}
		if err := m.Store.Preload(ctx, m.Embedder.Identity()); err != nil && ctx.Err() == nil {
			// The first recall reports it as it should (a damaged
			// segment falls back to keywords, saying so).
			fmt.Fprintf(io.Err, "deja: loading the vectors ahead of the first recall: %v\n", err)
		}
	}()
	return func() { <-done }
}

// openMemory opens the store for a long-running process and chooses the
// query embedder once; Select's note goes to stderr.
func openMemory(ctx context.Context, io *IO, cfg config.Config) (*serve.Memory, error) {
	mode, err := recall.ParseMode(cfg.Recall.Mode)
	if err != nil {
		return nil, err
	}
	sto, err := recall.OpenWarm(ctx, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	m := &serve.Memory{Store: sto, Mode: mode, Limit: cfg.Recall.Limit, Harnesses: knownHarnesses().Names()}
	m.Keep = func(ctx context.Context, text, project string, tags []string) (string, error) {
		return keepNote(ctx, io, cfg, note.Line{Text: text, Project: project, Tags: tags})
	}
	// A server says which embedder answers every time it starts: it is
	// its log's first line, not a notice repeated before each result.
	logged := *io
	logged.Verbose = !io.Quiet
	emb, why := selectEmbedder(ctx, &logged, cfg)
	if emb != nil {
		m.Embedder = emb
	} else {
		m.NoEmbedder = why
		fmt.Fprintf(io.Err, "deja: no embedder (%s): recall answers by keywords\n", why)
	}
	return m, nil
}
