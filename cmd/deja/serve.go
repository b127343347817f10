package main

import (
	"context"
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

It answers on a Unix domain socket in the data directory (serve.sock,
0600 in the 0700 directory; on Windows a named pipe whose ACL admits you
alone), which only you can reach. TCP is opt-in: with
--addr HOST:PORT it listens there too, and every request over TCP must
carry 'Authorization: Bearer TOKEN'. The token comes from --token or
(better: it stays out of the process list) DEJA_TOKEN, at least 32
characters; without one deja makes a 256-bit token and writes it to
serve.token in the data directory, readable by you only. Binding an
address beyond loopback needs a token you chose.

While it runs, 'deja recall' for the same data directory answers through it
with the vectors already loaded, and reads the store itself when no server
answers. It announces itself in serve.json in the data directory (socket,
address, pid and a per-start secret, never a token); a client sends nothing
until the server proves it knows that secret, and removes a file no server
answers for. The file is removed when the server stops on SIGINT or
SIGTERM. An index run by another process is seen by the next recall.`

type serveOptions struct {
	addr  string
	token string
}

// shutdownGrace is how long a stopping server waits for recalls in flight.
const shutdownGrace = 5 * time.Second

func newServeCmd(io *IO) *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve deja's memory to several agents over HTTP (MCP and JSON)",
		Long:  serveLong,
		Example: `  deja serve
  deja serve --addr 127.0.0.1:7464
  DEJA_TOKEN=$(openssl rand -hex 16) deja serve --addr 0.0.0.0:7464`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.token == "" {
				opts.token = os.Getenv("DEJA_TOKEN")
			}
			return runServe(cmd, io, opts)
		},
	}
	cmd.Flags().StringVar(&opts.addr, "addr", "", "also listen on TCP at HOST:PORT, such as 127.0.0.1:7464 (port 0 picks a free one); requests there need the token")
	cmd.Flags().StringVar(&opts.token, "token", "", "the token TCP requests must carry, at least 32 characters (default $DEJA_TOKEN, else a new one in serve.token)")
	return cmd
}

func runServe(cmd *cobra.Command, io *IO, opts serveOptions) error {
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	extendStopGrace(ctx, shutdownGrace+time.Second)
	if opts.addr != "" {
		if err := serve.CheckBind(opts.addr, opts.token); err != nil {
			return err
		}
	}
	if opts.token != "" {
		if err := serve.CheckToken(opts.token); err != nil {
			return err
		}
	}
	cfg, err := loadConfig(cmd, nil)
	if err != nil {
		return err
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return err
	}
	m, err := openMemory(ctx, io, cfg)
	if err != nil {
		return err
	}
	defer m.Store.Close()
	secret, err := serve.NewSecret()
	if err != nil {
		return err
	}
	local, err := serve.ListenLocal(dataDir)
	if err != nil {
		return err
	}
	defer local.Close()
	info := serve.Info{Socket: local.Path, Secret: secret, PID: os.Getpid(), DataDir: dataDir, Started: time.Now()}
	if m.Embedder != nil {
		info.Embedder = m.Embedder.Identity()
	}
	var tcp net.Listener
	madeToken := false
	if opts.addr != "" {
		if opts.token == "" {
			if opts.token, err = serve.NewToken(); err != nil {
				return err
			}
			if err := serve.WriteToken(dataDir, opts.token); err != nil {
				return err
			}
			madeToken = true
			defer os.Remove(filepath.Join(dataDir, serve.TokenFile))
		}
		if tcp, err = net.Listen("tcp", opts.addr); err != nil {
			return fmt.Errorf("serve: %w (another deja serve may be running: see %s, or pick another --addr)", err, filepath.Join(dataDir, serve.InfoFile))
		}
		defer tcp.Close()
		info.URL, info.Token = "http://"+clientAddr(tcp.Addr()), true
	}
	if err := serve.WriteInfo(dataDir, info); err != nil {
		return err
	}
	defer serve.RemoveInfo(dataDir, info.PID)

	mcpServer := serve.NewMCPServer(m, versionString())
	fmt.Fprintf(io.Out, "deja: serving %s on %s", dataDir, local.Path)
	if tcp != nil {
		fmt.Fprintf(io.Out, " and at %s (MCP at %s, recall at %s)", info.URL, serve.MCPPath, serve.RecallPath)
	}
	fmt.Fprintln(io.Out, "; Ctrl-C stops")
	if madeToken {
		fmt.Fprintf(io.Out, "deja: TCP requests need 'Authorization: Bearer TOKEN'; the token is in %s\n", filepath.Join(dataDir, serve.TokenFile))
	}
	errs := make(chan error, 2)
	n := 1
	go func() {
		errs <- serve.Serve(ctx, local, serve.WithProof(secret, serve.NewHandler(m, mcpServer, "")), shutdownGrace)
	}()
	if tcp != nil {
		n++
		go func() {
			errs <- serve.Serve(ctx, tcp, serve.WithProof(secret, serve.NewHandler(m, mcpServer, opts.token)), shutdownGrace)
		}()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	if first != nil {
		return first
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
