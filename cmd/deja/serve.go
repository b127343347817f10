package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/serve"
)

const serveLong = `Serve deja's memory to several agents at once, as a long-running local
service: MCP over streamable HTTP at /mcp, and a JSON recall endpoint at
/v1/recall (POST {"query": "…", "limit": 5, "mode": "hybrid", "project":
DIR, "since": "7d"}; the answer has the fields of 'deja recall --json').

It binds 127.0.0.1 by default. Binding any other address needs a token,
from --token or (better: it stays out of the process list) DEJA_TOKEN; every
request must then carry 'Authorization: Bearer TOKEN'.

While it runs, 'deja recall' for the same data directory answers through it
with the vectors already loaded, and reads the store itself when no server
answers. It announces itself in serve.json in the data directory (address
and pid, never the token) and removes the file when it stops on SIGINT or
SIGTERM. An index run by another process is seen by the next recall.`

type serveOptions struct {
	addr  string
	token string
}

// defaultServeAddr is deja serve's address when none is given.
const defaultServeAddr = "127.0.0.1:7464"

// shutdownGrace is how long a stopping server waits for recalls in flight.
const shutdownGrace = 5 * time.Second

func newServeCmd(io *IO) *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve deja's memory to several agents over HTTP (MCP and JSON)",
		Long:  serveLong,
		Example: `  deja serve
  deja serve --addr 127.0.0.1:0
  DEJA_TOKEN=$(openssl rand -hex 16) deja serve --addr 0.0.0.0:7464`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.token == "" {
				opts.token = os.Getenv("DEJA_TOKEN")
			}
			return runServe(cmd, io, opts)
		},
	}
	cmd.Flags().StringVar(&opts.addr, "addr", defaultServeAddr, "HOST:PORT to listen on (port 0 picks a free one)")
	cmd.Flags().StringVar(&opts.token, "token", "", "require this token on every request (default $DEJA_TOKEN)")
	return cmd
}

func runServe(cmd *cobra.Command, io *IO, opts serveOptions) error {
	ctx := cmd.Context()
	if err := serve.CheckBind(opts.addr, opts.token); err != nil {
		return err
	}
	cfg, err := loadConfig(cmd, nil)
	if err != nil {
		return err
	}
	m, err := openMemory(ctx, io, cfg)
	if err != nil {
		return err
	}
	defer m.Store.Close()
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return fmt.Errorf("serve: %w (another deja serve may be running: see %s, or pick another --addr)", err, filepath.Join(cfg.DataDir, serve.InfoFile))
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		ln.Close()
		return err
	}
	info := serve.Info{URL: "http://" + clientAddr(ln.Addr()), PID: os.Getpid(), DataDir: dataDir, Token: opts.token != "", Started: time.Now()}
	if m.Embedder != nil {
		info.Embedder = m.Embedder.Identity()
	}
	if err := serve.WriteInfo(cfg.DataDir, info); err != nil {
		ln.Close()
		return err
	}
	defer serve.RemoveInfo(cfg.DataDir, info.PID)
	fmt.Fprintf(io.Out, "deja: serving %s at %s (MCP at %s, recall at %s); Ctrl-C stops\n", cfg.DataDir, info.URL, serve.MCPPath, serve.RecallPath)
	h := serve.NewHandler(m, serve.NewMCPServer(m, versionString()), opts.token)
	if err := serve.Serve(ctx, ln, h, shutdownGrace); err != nil {
		return err
	}
	fmt.Fprintln(io.Err, "deja: stopped")
	return nil
}

// clientAddr is the address a local client dials: a server listening on
// every interface is reached on loopback.
func clientAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
}
