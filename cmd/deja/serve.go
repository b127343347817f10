package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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
SIGTERM. An index run by another process is seen by the next recall.

One service runs per data directory: it holds serve.lock there, and a
second 'deja serve' is refused. A cold 'deja recall' or 'deja hook' that
finds none starts one in the background (output in serve.log), so the
next call is warm; that service exits after serve.idle without a request
(default 15m). Turn this off with serve.autostart = false in config.toml
or DEJA_SERVE_AUTOSTART=false. Any service exits when its store is
removed or replaced, and 'deja serve --stop' stops the one that runs.`

type serveOptions struct {
	addr  string
	token string
	idle  time.Duration
	stop  bool
	// auto: a recall started this service in the background.
	auto bool
}

// watchTick is how often a service checks its idle time and its store.
const watchTick = time.Second

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
			if opts.stop {
				return runServeStop(cmd, io)
			}
			return runServe(cmd, io, opts)
		},
	}
	cmd.Flags().StringVar(&opts.addr, "addr", "", "also listen on TCP at HOST:PORT, such as 127.0.0.1:7464 (port 0 picks a free one); requests there need the token")
	cmd.Flags().DurationVar(&opts.idle, "idle", 0, "exit after this long without a request (default: never; a service a recall starts uses serve.idle)")
	cmd.Flags().BoolVar(&opts.stop, "stop", false, "stop the service that runs for this data directory, and wait until it has")
	cmd.Flags().StringVar(&opts.token, "token", "", "the token TCP requests must carry, at least 32 characters (default $DEJA_TOKEN, else a new one in serve.token)")
	cmd.Flags().BoolVar(&opts.auto, "auto", false, "started by a recall in the background: an explicit 'deja serve' takes its place")
	_ = cmd.Flags().MarkHidden("auto")
	cmd.Flags().String("data-dir", "", "the data directory to serve (default $DEJA_DATA_DIR, else ~/.local/share/deja); the one a recall starts names it, so 'ps' shows which store it serves")
	return cmd
}

// serveBind binds serve's --data-dir to the data.dir key.
var serveBind = map[string]string{"data-dir": "data.dir"}

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
	cfg, err := loadConfig(cmd, serveBind)
	if err != nil {
		return err
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return err
	}
	lock := serve.InheritedLock()
	if lock == nil {
		if lock, err = serve.TryLock(dataDir); err != nil {
			return err
		}
		if lock == nil && !opts.auto {
			// One a recall started in the background gives way to the
			// service the user asks for.
			if info, err := serve.ReadInfo(dataDir); err == nil && info.Auto {
				if err := stopServer(cmd.Context(), dataDir, info); err != nil {
					return err
				}
				fmt.Fprintf(io.Err, "deja: took over from the deja serve a recall had started for %s (pid %d)\n", dataDir, info.PID)
				if lock, err = serve.TryLock(dataDir); err != nil {
					return err
				}
			}
		}
		if lock == nil {
			return fmt.Errorf("serve: another deja serve runs for %s: use it, or stop it with 'deja serve --stop'", dataDir)
		}
	}
	defer lock.Close()
	m, err := openMemory(ctx, io, cfg)
	if err != nil {
		return err
	}
	defer m.Store.Close()
	opened := serve.StoreFile(dataDir)
	secret, err := serve.NewSecret()
	if err != nil {
		return err
	}
	local, err := serve.ListenLocal(dataDir)
	if err != nil {
		return err
	}
	defer local.Close()
	info := serve.Info{Socket: local.Path, Secret: secret, PID: os.Getpid(), DataDir: dataDir, Started: time.Now(), Auto: opts.auto}
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
	defer preload(ctx, io, m)()

	mcpServer := serve.NewMCPServer(m, versionString())
	fmt.Fprintf(io.Out, "deja: serving %s on %s", dataDir, local.Path)
	if tcp != nil {
		fmt.Fprintf(io.Out, " and at %s (MCP at %s, recall at %s)", info.URL, serve.MCPPath, serve.RecallPath)
	}
	fmt.Fprintln(io.Out, "; Ctrl-C stops")
	if madeToken {
		fmt.Fprintf(io.Out, "deja: TCP requests need 'Authorization: Bearer TOKEN'; the token is in %s\n", filepath.Join(dataDir, serve.TokenFile))
	}
	activity := serve.NewActivity()
	go func() {
		if why := activity.Watch(ctx, dataDir, opened, opts.idle, watchTick); why != "" {
			fmt.Fprintf(io.Err, "deja: stopping: %s\n", why)
			cancel()
		}
	}()
	// Only the owner reaches the socket, so only the owner stops the
	// service; TCP has no stop.
	localMux := http.NewServeMux()
	localMux.HandleFunc("POST "+serve.StopPath, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(io.Err, "deja: stopping: asked to by deja serve --stop")
		w.WriteHeader(http.StatusOK)
		cancel()
	})
	localMux.Handle("/", activity.Wrap(serve.NewHandler(m, mcpServer, "")))
	errs := make(chan error, 2)
	n := 1
	go func() {
		errs <- serve.Serve(ctx, local, serve.WithProof(secret, localMux), shutdownGrace)
	}()
	if tcp != nil {
		n++
		go func() {
			errs <- serve.Serve(ctx, tcp, serve.WithProof(secret, activity.Wrap(serve.NewHandler(m, mcpServer, opts.token))), shutdownGrace)
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

// stopWait bounds how long 'deja serve --stop' waits for the service to
// let go of its lock: its grace for recalls in flight, and a margin.
const stopWait = shutdownGrace + 5*time.Second

// runServeStop asks the service for this data directory to stop and
// waits until its lock is free, so that a following command finds none.
func runServeStop(cmd *cobra.Command, io *IO) error {
	cfg, err := loadConfig(cmd, serveBind)
	if err != nil {
		return err
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return err
	}
	info, err := serve.ReadInfo(dataDir)
	if err != nil {
		if !serve.Held(dataDir) {
			fmt.Fprintf(io.Out, "deja: no deja serve runs for %s\n", dataDir)
			return nil
		}
		return fmt.Errorf("serve: a deja serve holds %s but has not announced itself yet: try again in a moment", filepath.Join(dataDir, serve.LockFile))
	}
	if err := stopServer(cmd.Context(), dataDir, info); err != nil {
		if errors.Is(err, errStale) {
			fmt.Fprintf(io.Out, "deja: no deja serve runs for %s (removed a stale %s)\n", dataDir, serve.InfoFile)
			return nil
		}
		return err
	}
	fmt.Fprintf(io.Out, "deja: stopped the deja serve for %s (pid %d)\n", dataDir, info.PID)
	return nil
}

// errStale is stopServer's answer when the server info named had gone
// and nothing holds the data directory any more.
var errStale = errors.New("no deja serve runs")

// stopServer asks the server info names to stop and waits until it has
// let go of the data directory's lock.
func stopServer(ctx context.Context, dataDir string, info serve.Info) error {
	ctx, cancel := context.WithTimeout(ctx, stopWait)
	defer cancel()
	if err := serve.NewClient(info).Stop(ctx); err != nil {
		if errors.Is(err, serve.ErrNotServing) {
			serve.RemoveStaleInfo(dataDir, info)
			if !serve.Held(dataDir) {
				return errStale
			}
		}
		return fmt.Errorf("serve: stopping the service (pid %d): %w", info.PID, err)
	}
	for serve.Held(dataDir) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("serve: the service (pid %d) did not stop within %s: end it with kill %d", info.PID, stopWait, info.PID)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}
