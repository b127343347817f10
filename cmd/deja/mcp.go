package main

import (
	"context"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/memory"
	"github.com/deja-dev/deja/serve"
)

const mcpLong = `Serve deja's memory to one agent over MCP on stdin and stdout. The agent
starts 'deja mcp' itself and gets three tools:

  recall    past turns that match a query, by meaning or exact words
            (the fields of 'deja recall --json', and readable text)
  show      a session, or one turn of it, as Markdown
  sessions  recent sessions, optionally of one project

The store is opened once; an index run by another process is seen by the
next recall. Messages about the embedder go to stderr.

  claude mcp add deja -- deja mcp`

func newMcpCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve deja's memory to an agent over MCP (stdio)",
		Long:  mcpLong,
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
	err = serve.NewMCPServer(m, versionString()).Run(ctx, stdioTransport(io.In, io.Out))
	if ctx.Err() != nil {
		return nil // stopped by a signal
	}
	return err
}

// stdioTransport speaks MCP over the command's streams rather than
// os.Stdin and os.Stdout, so tests can drive it through pipes.
func stdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	return &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// openMemory opens the store for a long-running process and chooses the
// query embedder once; Select's note goes to stderr.
func openMemory(ctx context.Context, io *IO, cfg config.Config) (*serve.Memory, error) {
	mode, err := memory.ParseMode(cfg.Recall.Mode)
	if err != nil {
		return nil, err
	}
	store, err := memory.OpenWarm(ctx, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	m := &serve.Memory{Store: store, Mode: mode, Limit: cfg.Recall.Limit}
	emb, why := selectEmbedder(ctx, io, cfg)
	if emb != nil {
		m.Embedder = emb
	} else {
		m.NoEmbedder = why
		fmt.Fprintf(io.Err, "deja: no embedder (%s): recall answers by keywords\n", why)
	}
	return m, nil
}
