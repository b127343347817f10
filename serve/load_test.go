package serve

import (
	"context"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deja-dev/deja/embed"
)

// TestConcurrentRecallWhileIndexing runs 8 clients against a server on
// loopback through the recall endpoint 'deja recall' uses, re-indexes the
// store meanwhile from another store handle (as 'deja index' would), and
// expects no error and the new session to be found. DEJA_SERVE_SOAK (such
// as 30s) lengthens the run; go run ./bench/serve measures it.
func TestConcurrentRecallWhileIndexing(t *testing.T) {
	const clients = 8
	run := 2 * time.Second
	if d, err := time.ParseDuration(os.Getenv("DEJA_SERVE_SOAK")); err == nil {
		run = d
	}
	m, path := fixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	secret, _ := NewSecret()
	go func() {
		served <- Serve(ctx, ln, WithProof(secret, NewHandler(m, NewMCPServer(m, "test"), "")), 5*time.Second)
	}()
	info := Info{URL: "http://" + ln.Addr().String(), Secret: secret}

	queries := []string{"one customer can see another account's orders", "make the docker image smaller", "go test ./...", "internal/db/query.go", "rate limiting the login"}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  []string
		wg        sync.WaitGroup
	)
	deadline := time.Now().Add(run)
	for c := range clients {
		wg.Go(func() {
			// No deadline: under -race a recall can outlast deja
			// recall's patience, and that is not a server error.
			client := newClient(info, 0)
			for i := c; time.Now().Before(deadline); i++ {
				start := time.Now()
				_, err := client.Recall(ctx, "", RecallRequest{Query: queries[i%len(queries)]})
				took := time.Since(start)
				mu.Lock()
				latencies = append(latencies, took)
				if err != nil {
					failures = append(failures, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(run / 3)
	appendHistory(t, path, laterSession)
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	idx(t, m.Store.Dir(), emb, path)
	wg.Wait()

	// Like the clients above, no deadline: on a loaded machine the first
	// recall after a re-index reloads the vectors and may outlast deja
	// recall's 2 s patience; what is checked here is what it finds.
	patient := newClient(info, 0)
	out, err := patient.Recall(ctx, "", RecallRequest{Query: "token bucket limiter on the login route", Limit: 1})
	if err != nil || len(out.Results) == 0 || !strings.HasSuffix(out.Results[0].SessionID, "-20260720T110000") {
		t.Errorf("after re-indexing, recall gave %+v, %v; want the new session", out, err)
	}
	stop()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d recalls failed, first: %s", len(failures), len(latencies), failures[0])
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) time.Duration { return latencies[int(p*float64(len(latencies)-1))] }
	t.Logf("%d clients × %s: %d recalls, p50 %s, p95 %s, p99 %s", clients, run, len(latencies), pct(0.50), pct(0.95), pct(0.99))
}
