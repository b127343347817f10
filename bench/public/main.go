// Command public measures deja's recall on public long-term memory
// benchmarks, LoCoMo (locomo10.json) and LongMemEval (longmemeval_s.json,
// longmemeval_oracle.json), read from a path: no data ships with deja.
//
// Each LoCoMo conversation, and each LongMemEval question's history, is
// one store; each of its sessions one Claude Code transcript that deja's
// own reader indexes. The question is the query, verbatim. A question is
// a hit at k when a session holding its evidence is among the first k
// distinct sessions of deja's ranked turns; recall@k is the share of its
// evidence sessions there; MRR is over sessions.
//
//	go run ./bench/public -data ../shared/bench/locomo/locomo10.json
//	go run ./bench/public -data longmemeval_s.json -mode hybrid -limit 50
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/recall"
)

// Options are the command's flags.
type Options struct {
	Data   string
	Format Format
	Modes  []recall.Mode
	// Limit is how many conversations or questions to run; 0 is all.
	Limit int
	// Turns is how many ranked turns each recall returns.
	Turns int
	// Jobs is how many stores are built and asked at once.
	Jobs int
	JSON bool
	// Tune overrides recall's ranking constants, as JSON (-tune
	// '{"When":0}'); empty keeps recall's own.
	Tune string
}

func main() {
	var o Options
	var format, mode string
	flag.StringVar(&o.Data, "data", "", "the benchmark file: locomo10.json, longmemeval_s.json or longmemeval_oracle.json")
	flag.StringVar(&format, "format", "", "locomo or longmemeval; default detected from the file")
	flag.StringVar(&mode, "mode", "all", "hybrid, keyword, semantic or all")
	flag.IntVar(&o.Limit, "limit", 0, "run only the first N conversations (LoCoMo) or questions (LongMemEval)")
	flag.IntVar(&o.Turns, "turns", 50, "ranked turns each recall returns, from which the sessions are taken")
	flag.IntVar(&o.Jobs, "j", min(runtime.NumCPU(), 8), "stores built and asked at once")
	flag.BoolVar(&o.JSON, "json", false, "print the tables as JSON")
	flag.StringVar(&o.Tune, "tune", "", `override recall's ranking constants (recall.Tuning's fields), as a JSON object: -tune '{"When":0}'`)
	flag.Parse()
	o.Format = Format(format)
	switch mode {
	case "all":
		o.Modes = []recall.Mode{recall.Hybrid, recall.Keyword, recall.Semantic}
	case "hybrid", "keyword", "semantic":
		o.Modes = []recall.Mode{recall.Mode(mode)}
	default:
		fmt.Fprintf(os.Stderr, "public: -mode %q: want hybrid, keyword, semantic or all\n", mode)
		os.Exit(2)
	}
	if o.Data == "" {
		fmt.Fprintln(os.Stderr, "public: pass -data FILE (locomo10.json, longmemeval_s.json or longmemeval_oracle.json)")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "public:", err)
		os.Exit(1)
	}
}

// Report is one run's result.
type Report struct {
	Data      string                `json:"data"`
	Format    Format                `json:"format"`
	Haystacks int                   `json:"haystacks"`
	Questions int                   `json:"questions"`
	Seconds   float64               `json:"seconds"`
	Tables    map[recall.Mode]Table `json:"tables"`
}

func run(ctx context.Context, w io.Writer, o Options) error {
	start := time.Now()
	f, err := os.Open(o.Data)
	if err != nil {
		return err
	}
	defer f.Close()
	rd, err := NewReader(f, o.Format)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Data, err)
	}
	results, haystacks, err := measureAll(ctx, rd, o)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Data, err)
	}
	rep := Report{Data: o.Data, Format: rd.Format, Haystacks: haystacks, Tables: map[recall.Mode]Table{}}
	abstention := rd.Format == LongMemEval
	for _, mode := range o.Modes {
		var mine []Ranked
		for _, r := range results {
			if r.Mode == mode {
				mine = append(mine, r)
			}
		}
		rep.Questions = len(mine)
		rep.Tables[mode] = Tabulate(mine, abstention)
	}
	rep.Seconds = time.Since(start).Seconds()
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(w, "%s (%s): %d stores, %d questions, %d turns a recall, in %s\n", o.Data, rep.Format, rep.Haystacks, rep.Questions, o.Turns, time.Since(start).Round(time.Second))
	for _, mode := range o.Modes {
		fmt.Fprintf(w, "\n%s\n%s", mode, rep.Tables[mode])
	}
	return nil
}

// measureAll measures every haystack the reader gives, o.Jobs at a time:
// the reader hands one over only when a worker is free, so no more than
// o.Jobs haystacks and stores are held at once.
func measureAll(ctx context.Context, rd *Reader, o Options) ([]Ranked, int, error) {
	emb, err := embed.NewBuiltin()
	if err != nil {
		return nil, 0, err
	}
	var tune *recall.Tuning
	if o.Tune != "" {
		t := recall.DefaultTuning(emb.Identity())
		if err := json.Unmarshal([]byte(o.Tune), &t); err != nil {
			return nil, 0, fmt.Errorf("-tune: %w", err)
		}
		tune = &t
	}
	root, err := os.MkdirTemp("", "deja-public-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(root)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu      sync.Mutex
		results []Ranked
		first   error
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
		cancel()
	}
	work := make(chan Haystack)
	for range max(o.Jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range work {
				r, err := Measure(ctx, root, h, emb, o.Modes, o.Turns, tune)
				if err != nil {
					fail(err)
					continue
				}
				mu.Lock()
				results = append(results, r...)
				mu.Unlock()
			}
		}()
	}
	n := 0
	for o.Limit <= 0 || n < o.Limit {
		h, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail(err)
			break
		}
		n++
		select {
		case work <- h:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(work)
	wg.Wait()
	return results, n, first
}
