package main

import (
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/serve"
)

// evalQuery is one of the eval's corpus queries (bench/eval).
type evalQuery struct{ Query, Kind, Store string }

// evalQueries are the eval's corpus queries (not those of its tiny
// stores), every kind mixed: paraphrases, exact lookups, near-verbatim
// questions, hubs, negatives and missing literals. The typos are left
// out: they measure what recall reads, and timing them would change the
// mix the figures before them were measured on (91 queries).
func evalQueries(file string) ([]evalQuery, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var qs []evalQuery
	if err := json.Unmarshal(data, &qs); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return slices.DeleteFunc(qs, func(q evalQuery) bool { return q.Store != "" || q.Kind == "typo" }), nil
}

// warmBench recalls every query once per mode in one process, after the
// preload a service makes and one recall, and prints p50 and p99,
// chromem-go's share of the time, and each figure over the floor: a flat
// scan of the same vectors for each query's 100 nearest, on every core.
func warmBench(ctx context.Context, s *store.Store, emb embed.Embedder, qs []evalQuery) error {
	queries := make([]string, len(qs))
	for i, q := range qs {
		queries[i] = q.Query
	}
	// What a service loads when it starts (deja serve, deja mcp).
	start := time.Now()
	if err := recall.Preload(ctx, s, emb.Identity()); err != nil {
		return err
	}
	fmt.Printf("  preload of a service         %8s  vectors, collections and every turn's ranking facts, in one process\n", ms(time.Since(start)))
	floor, floor1, err := flatFloor(ctx, s, emb, queries)
	if err != nil {
		return err
	}
	fmt.Printf("  floor: flat scan, top 100    %8s  p50 over the %d queries on every core (one core: %s)\n", msf(floor), len(queries), msf(floor1))
	for _, mode := range []recall.Mode{recall.Keyword, recall.Hybrid, recall.Semantic} {
		if _, err := recall.Recall(ctx, s, recall.Options{Query: queries[0], Mode: mode, Embedder: emb}); err != nil {
			return err
		}
		var runs []time.Duration
		var total, vector time.Duration
		if mode == recall.Hybrid && warmProfile != "" {
			f, err := os.Create(warmProfile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
		}
		for _, q := range queries {
			var tr recall.Trace
			start := time.Now()
			if _, err := recall.Recall(ctx, s, recall.Options{Query: q, Mode: mode, Embedder: emb, Trace: &tr}); err != nil {
				return fmt.Errorf("%q: %w", q, err)
			}
			took := time.Since(start)
			runs = append(runs, took)
			total += took
			vector += tr.VectorQuery
		}
		if mode == recall.Hybrid {
			pprof.StopCPUProfile()
		}
		share := ""
		if vector > 0 {
			share = fmt.Sprintf(", the vector queries %.0f %% of the time", 100*vector.Seconds()/total.Seconds())
		}
		fmt.Printf("  warm Recall %-8s           %8s  p50 of %d mixed queries, p99 %s; %.1f× the floor%s\n",
			mode, msf(p50(runs)), len(runs), msf(pct(runs, 99)), p50(runs).Seconds()/floor.Seconds(), share)
	}
	return nil
}

// flatFloor returns the p50 over the queries of a flat scan of the
// embedder's vectors for the 100 most similar, on every core and on one.
// The query's embedding is not timed: recall embeds it the same way.
func flatFloor(ctx context.Context, s *store.Store, emb embed.Embedder, queries []string) (every, one time.Duration, err error) {
	dim, vecs, err := recall.FlatVectors(ctx, s, emb.Identity())
	if err != nil {
		return 0, 0, err
	}
	if dim == 0 {
		return 0, 0, fmt.Errorf("no %s vectors to scan", emb.Identity())
	}
	qvecs, err := emb.Embed(ctx, embed.Query, queries)
	if err != nil {
		return 0, 0, err
	}
	var all, single []time.Duration
	for _, q := range qvecs {
		start := time.Now()
		flatScan(q, vecs, dim, runtime.GOMAXPROCS(0))
		all = append(all, time.Since(start))
		start = time.Now()
		flatScan(q, vecs, dim, 1)
		single = append(single, time.Since(start))
	}
	return p50(all), p50(single), nil
}

// flatScan returns the similarities of the 100 vectors nearest q, on
// workers goroutines each scanning its share of the vectors.
func flatScan(q, vecs []float32, dim, workers int) []float32 {
	const k = 100
	n := len(vecs) / dim
	tops := make([]minHeap, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := make(minHeap, 0, k)
			for i := w * n / workers; i < (w+1)*n/workers; i++ {
				v := vecs[i*dim : (i+1)*dim]
				var d float32
				for j, x := range q {
					d += x * v[j]
				}
				if len(h) < k {
					heap.Push(&h, d)
				} else if d > h[0] {
					h[0] = d
					heap.Fix(&h, 0)
				}
			}
			tops[w] = h
		}()
	}
	wg.Wait()
	var out minHeap
	for _, h := range tops {
		for _, d := range h {
			if len(out) < k {
				heap.Push(&out, d)
			} else if d > out[0] {
				out[0] = d
				heap.Fix(&out, 0)
			}
		}
	}
	return out
}

type minHeap []float32

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(float32)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// servedBench starts a deja serve on the store st and measures, through
// it, the first recall of a fresh deja process (and the time from the
// service's start), then every query of qs as a user types it, a fresh
// deja recall each, in hybrid and in keyword mode (p50 and p99 of the
// whole process), and the service's peak RSS after them.
func servedBench(bin, st string, qs []evalQuery) error {
	srv := exec.Command(bin, "serve")
	srv.Env = append(os.Environ(), "DEJA_DATA_DIR="+st, "DEJA_EMBED_PROVIDER=builtin", "DEJA_SERVE_AUTOSTART=false")
	start := time.Now()
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() {
		stop := exec.Command(bin, "serve", "--stop")
		stop.Env = srv.Env
		stop.Run()
		srv.Wait()
	}()
	if err := serve.WaitServing(st, time.Minute, 5*time.Millisecond); err != nil {
		return err
	}
	first, _, out, err := deja(bin, st, "recall", "-v", "--mode", "hybrid", "--", qs[0].Query)
	if err != nil {
		return err
	}
	if !strings.Contains(out, "recalled through deja serve") {
		return fmt.Errorf("the first recall did not go through the new service:\n%s", out)
	}
	fmt.Printf("  first recall of a new service %8s  a fresh deja recall through a deja serve just started; %s from the service's start\n", ms(first), ms(time.Since(start)))
	for _, mode := range []string{"hybrid", "keyword"} {
		var runs []time.Duration
		for _, q := range qs {
			took, _, out, err := deja(bin, st, "recall", "-v", "--mode", mode, "--", q.Query)
			if err != nil {
				return err
			}
			if !strings.Contains(out, "recalled through deja serve") {
				return fmt.Errorf("deja recall %q did not go through the service:\n%s", q.Query, out)
			}
			runs = append(runs, took)
		}
		fmt.Printf("  served deja recall --mode %-7s %6s  p50 of %d fresh processes through the service (the eval's mixed queries), p99 %s\n", mode, ms(p50(runs)), len(runs), ms(pct(runs, 99)))
	}
	fmt.Printf("  service peak RSS             %8s  (VmHWM of the deja serve after those recalls)\n", mb(peakRSS(srv.Process.Pid)))
	return nil
}

// peakRSS is the peak resident set of process pid (VmHWM), 0 where
// /proc does not say.
func peakRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb * 1024
		}
	}
	return 0
}

func msf(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
