// Command serve measures 'deja serve' under load on loopback: it indexes
// the aider corpus (or the sample history) into a new store with the
// built-in embedder, serves it in-process exactly as 'deja serve' does, and
// runs concurrent clients for a while, re-indexing the store half-way.
// It prints the recall count, errors, latency percentiles, and the latency
// of a cold (first) and a warm recall through the server next to a fresh
// store's.
//
// Run it from the repository root:
//
//	go run ./bench/serve                        # 8 clients, 30 s, JSON endpoint
//	go run ./bench/serve -via mcp -duration 10s # the recall tool over streamable HTTP
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/serve"
	"github.com/deja-dev/deja/userfile"
)

var queries = []string{
	"the tests fail after the refactor",
	"make the docker image smaller",
	"add a command line flag",
	"one customer can see another account's data",
	"go test ./...",
	"README.md",
	"why does the build break on windows",
	"store the settings in a config file",
}

// laterSession is appended to one history half-way through the run; the
// server must find it afterwards without a restart.
const laterSession = `
# aider chat started at 2030-01-01 09:00:00

#### Add a zebra-striped quokka exporter to the billing page  

Added the quokka exporter in billing/quokka_export.go with zebra striping.

> Applied edit to billing/quokka_export.go  
`

func main() {
	corpus := flag.String("corpus", "../shared/aider/corpus", "directory of aider histories (*.md); the sample history when it has none")
	clients := flag.Int("clients", 8, "concurrent clients")
	duration := flag.Duration("duration", 30*time.Second, "how long the clients run")
	via := flag.String("via", "json", "json (POST /v1/recall, as deja recall) or mcp (the recall tool over streamable HTTP)")
	flag.Parse()
	if err := run(*corpus, *clients, *duration, *via); err != nil {
		fmt.Fprintln(os.Stderr, "bench/serve:", err)
		os.Exit(1)
	}
}

func run(corpus string, clients int, duration time.Duration, via string) error {
	if via != "json" && via != "mcp" {
		return fmt.Errorf("-via %q: use json or mcp", via)
	}
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "deja-bench-serve-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("machine: %d CPUs, %s, load average %s\n", runtime.NumCPU(), runtime.Version(), strings.Join(strings.Fields(string(load))[:3], " "))

	histories, err := copyHistories(corpus, filepath.Join(tmp, "projects"))
	if err != nil {
		return err
	}
	emb, err := embed.NewBuiltin()
	if err != nil {
		return err
	}
	dataDir := filepath.Join(tmp, "data")
	start := time.Now()
	rep, err := idx(ctx, dataDir, emb, histories)
	if err != nil {
		return err
	}
	fmt.Printf("store: %d histories, %d sessions, %d turns, indexed in %s\n", len(histories), rep.Sessions, rep.NewTurns, time.Since(start).Round(time.Millisecond))

	fresh, err := freshRecall(ctx, dataDir, emb)
	if err != nil {
		return err
	}
	st, err := recall.OpenWarm(ctx, dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	m := &serve.Memory{Store: st, Embedder: emb, Mode: recall.Hybrid, Limit: 5}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	served, stop := context.WithCancel(ctx)
	defer stop()
	secret, err := serve.NewSecret()
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		done <- serve.Serve(served, ln, serve.WithProof(secret, serve.NewHandler(m, serve.NewMCPServer(m, "bench"), "")), 5*time.Second)
	}()
	info := serve.Info{URL: "http://" + ln.Addr().String(), Secret: secret}

	client := serve.NewClient(info)
	cold, err := timed(func() error {
		_, err := client.Recall(ctx, "", serve.RecallRequest{Query: queries[0]})
		return err
	})
	if err != nil {
		return err
	}
	var warm []time.Duration
	for i := range 50 {
		d, err := timed(func() error {
			_, err := client.Recall(ctx, "", serve.RecallRequest{Query: queries[i%len(queries)]})
			return err
		})
		if err != nil {
			return err
		}
		warm = append(warm, d)
	}
	slices.Sort(warm)
	fmt.Printf("recall, one client: fresh store (open, load vectors, recall) %s; through the server cold (first) %s, warm p50 %s\n",
		ms(fresh), ms(cold), ms(pct(warm, 0.5)))

	lat, failures, err := hammer(ctx, info, clients, duration, via, func() error {
		if err := appendFile(histories[0], laterSession); err != nil {
			return err
		}
		_, err := idx(ctx, dataDir, emb, histories[:1])
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(lat)
	fmt.Printf("load via %s: %d clients × %s: %d recalls (%.0f/s), %d errors, p50 %s, p95 %s, p99 %s, max %s\n",
		via, clients, duration, len(lat), float64(len(lat))/duration.Seconds(), len(failures), ms(pct(lat, 0.5)), ms(pct(lat, 0.95)), ms(pct(lat, 0.99)), ms(lat[len(lat)-1]))
	for _, f := range failures[:min(3, len(failures))] {
		fmt.Println("  error:", f)
	}

	out, err := client.Recall(ctx, "", serve.RecallRequest{Query: "zebra-striped quokka exporter", Limit: 1})
	seen := err == nil && len(out.Results) > 0 && strings.HasSuffix(out.Results[0].SessionID, "-20300101T090000")
	fmt.Printf("re-indexed during the run, seen by the server: %v\n", seen)
	stop()
	if err := <-done; err != nil {
		return err
	}
	if len(failures) > 0 || !seen {
		return errors.New("failed")
	}
	return nil
}

// hammer runs the clients for d, calls reindex once half-way, and returns
// every recall's latency and the errors.
func hammer(ctx context.Context, info serve.Info, clients int, d time.Duration, via string, reindex func() error) ([]time.Duration, []string, error) {
	var (
		mu       sync.Mutex
		lat      []time.Duration
		failures []string
		wg       sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	for c := range clients {
		ask, closeFn, err := asker(ctx, info, via)
		if err != nil {
			return nil, nil, err
		}
		wg.Go(func() {
			defer closeFn()
			for i := c; time.Now().Before(deadline); i++ {
				took, err := timed(func() error { return ask(queries[i%len(queries)]) })
				mu.Lock()
				lat = append(lat, took)
				if err != nil {
					failures = append(failures, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(d / 2)
	err := reindex()
	wg.Wait()
	return lat, failures, err
}

// asker returns a function that sends one recall the way via says.
func asker(ctx context.Context, info serve.Info, via string) (func(string) error, func(), error) {
	if via == "json" {
		c := serve.NewClient(info)
		return func(q string) error {
			_, err := c.Recall(ctx, "", serve.RecallRequest{Query: q})
			return err
		}, func() {}, nil
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: info.URL + serve.MCPPath, HTTPClient: &http.Client{Timeout: 10 * time.Second}}, nil)
	if err != nil {
		return nil, nil, err
	}
	return func(q string) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": q}})
		if err == nil && res.IsError {
			err = fmt.Errorf("recall tool: %v", res.Content)
		}
		return err
	}, func() { cs.Close() }, nil
}

// freshRecall is what a 'deja recall' process pays inside: open the store,
// load the vectors, recall.
func freshRecall(ctx context.Context, dataDir string, emb embed.Embedder) (time.Duration, error) {
	return timed(func() error {
		s, err := store.Open(ctx, dataDir)
		if err != nil {
			return err
		}
		defer s.Close()
		_, err = recall.Recall(ctx, s, recall.Options{Query: queries[0], Embedder: emb, Limit: 5})
		return err
	})
}

func copyHistories(corpus, into string) ([]string, error) {
	paths, _ := filepath.Glob(filepath.Join(corpus, "*.md"))
	if len(paths) == 0 {
		paths = []string{filepath.Join("testdata", "sample", aider.HistoryFileName)}
	}
	var out []string
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%v (run from the repository root)", err)
		}
		dir := filepath.Join(into, fmt.Sprintf("project%02d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		dst := filepath.Join(dir, aider.HistoryFileName)
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return nil, err
		}
		resolved, err := userfile.ResolvePath(dst)
		if err != nil {
			return nil, err
		}
		out = append(out, resolved)
	}
	return out, nil
}

// index runs an index through its own store handle, as a separate
// 'deja index' process would.
func idx(ctx context.Context, dataDir string, emb embed.Embedder, paths []string) (index.Report, error) {
	s, err := store.Open(ctx, dataDir)
	if err != nil {
		return index.Report{}, err
	}
	defer s.Close()
	rep, err := index.Index(ctx, s, index.Options{Paths: paths, Embedder: emb, Budget: 2000})
	if err == nil && len(rep.Problems) > 0 {
		err = errors.New(strings.Join(rep.Problems, "; "))
	}
	return rep, err
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func timed(fn func() error) (time.Duration, error) {
	start := time.Now()
	err := fn()
	return time.Since(start), err
}

func pct(sorted []time.Duration, p float64) time.Duration {
	return sorted[int(p*float64(len(sorted)-1))]
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}
