// Command eval measures deja's recall on the aider corpus in
// ../shared/aider/corpus: hit@1, hit@5 and MRR per mode for the queries
// in queries.json (paraphrases, exact lookups, near-verbatim questions,
// hub probes, and queries against the tiny stores in tiny/), whether
// every negative and missing literal returns nothing, and the hubness of
// queries written from the corpus. Without the corpus it says so and
// exits 0.
//
//	go run ./bench/eval            # the tables in docs/recall.md
//	go run ./bench/eval -v         # and each query's rank per mode
//	go run ./bench/eval -sweep     # hybrid over a grid of floor, domain, k and weight
//	go run ./bench/eval -store DIR/store  # the same beside the 100,000 turns 'go run ./bench/perf -big DIR' generates
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// printCentroid prints the corpus centroid instead of scoring.
var printCentroid bool

// harnessRoot holds the harness corpora.
var harnessRoot string

// tuneFlags overrides Tuning fields, as JSON: -tune '{"Verbatim":0.8}'.
var tuneFlags = flag.String("tune", "", "override Tuning fields, as a JSON object")

func main() {
	corpus := flag.String("corpus", "../shared/aider/corpus", "the aider corpus directory")
	queries := flag.String("queries", "bench/eval/queries.json", "the eval queries")
	st := flag.String("store", "", "store directory to (re)use; default a temporary one")
	verbose := flag.Bool("v", false, "print each query's rank per mode")
	sweep := flag.Bool("sweep", false, "score hybrid over a grid of floor, domain, fusion k and exact weight")
	flag.BoolVar(&printCentroid, "centroid", false, "print the corpus's centroid as Go source (memory/recall/prior.go) and exit")
	hubs := flag.Int("hubs", 100, "turns of each set (dev, held-out) the generated queries are written from")
	flag.StringVar(&harnessRoot, "harness-corpus", "../shared/harness/corpus", "the harness corpora (claude-code/, codex/, copilot-cli/) that bench/eval/harness.json is written from")
	flag.Parse()
	if err := run(*corpus, *queries, *st, *verbose, *sweep, *hubs); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

func run(corpus, queries, storeDir string, verbose, sweep bool, perSet int) error {
	ctx := context.Background()
	paths, err := Corpus(corpus)
	if err != nil {
		fmt.Printf("eval: skipped: %v (pass -corpus DIR)\n", err)
		return nil
	}
	qs, err := LoadQueries(queries)
	if err != nil {
		return err
	}
	if storeDir == "" {
		if storeDir, err = os.MkdirTemp("", "deja-eval-"); err != nil {
			return err
		}
		defer os.RemoveAll(storeDir)
	}
	s, err := store.Open(ctx, storeDir)
	if err != nil {
		return err
	}
	defer s.Close()
	emb, err := embed.NewBuiltin()
	if err != nil {
		return err
	}
	e := &Eval{Store: s, Embedder: emb, Queries: qs}
	start := time.Now()
	rep, err := e.Index(ctx, paths)
	if err != nil {
		return err
	}
	if printCentroid {
		c, err := recall.Centroid(ctx, s, emb.Identity(), recall.Scope{})
		if err != nil {
			return err
		}
		return writeCentroid(os.Stdout, emb.Identity(), len(paths), c)
	}
	tinyDir, err := os.MkdirTemp("", "deja-eval-tiny-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tinyDir)
	if err := e.IndexTiny(ctx, filepath.Join(filepath.Dir(queries), "tiny"), tinyDir); err != nil {
		return err
	}
	defer e.Close()
	fmt.Printf("corpus: %d histories, %d new turns indexed in %s; %d queries, embedder %s\n\n",
		len(paths), rep.NewTurns, time.Since(start).Round(time.Millisecond), len(qs), emb.Identity())

	tune := recall.DefaultTuning(emb.Identity())
	if *tuneFlags != "" {
		if err := json.Unmarshal([]byte(*tuneFlags), &tune); err != nil {
			return fmt.Errorf("-tune: %w", err)
		}
	}
	if sweep {
		return runSweep(ctx, e, tune)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "mode\tall\tparaphrase\texact\tnegatives empty")
	per := map[recall.Mode][]Outcome{}
	all := map[recall.Mode]map[string]Score{}
	for _, mode := range []recall.Mode{recall.Hybrid, recall.Semantic, recall.Keyword} {
		scores, outs, err := e.Run(ctx, mode, tune)
		if err != nil {
			return err
		}
		per[mode], all[mode] = outs, scores
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\n", mode, scores["all"], scores["paraphrase"], scores["exact"], scores["negative"].Empty, scores["negative"].Negatives)
	}
	tw.Flush()
	fmt.Println()
	tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "mode\tverbatim\thub probes\tmissing literals empty\ttiny stores: paraphrase\ttiny negatives empty\ttypos\trespelled: typos, others")
	for _, mode := range []recall.Mode{recall.Hybrid, recall.Semantic, recall.Keyword} {
		sc := all[mode]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%d/%d\t%s\t%d/%d, %d\n", mode, sc["verbatim"], sc["hub"], sc["missing"].Empty, sc["missing"].Negatives,
			sc["tiny paraphrase"], sc["tiny negative"].Empty, sc["tiny negative"].Negatives, sc["typo"], sc["typo"].Respelled, sc["typo"].N, respelledOthers(sc))
	}
	tw.Flush()
	fmt.Printf("\n(k=%d, exact weight %.1f, floor %.2f, domain %.2f for %s)\n", tune.FusionK, tune.ExactWeight, tune.Floor, tune.Domain, emb.Identity())
	fmt.Println()
	if err := runHarnesses(ctx, os.Stdout, harnessRoot, filepath.Join(filepath.Dir(queries), "harness.json"), emb, tune, verbose); err != nil {
		return err
	}
	gen, err := e.Generate(ctx, perSet)
	if err != nil {
		return err
	}
	fmt.Println()
	for _, mode := range []recall.Mode{recall.Hybrid, recall.Semantic} {
		for _, set := range []string{"dev", "held-out", "all"} {
			h, err := e.Hubs(ctx, gen, set, mode, tune)
			if err != nil {
				return err
			}
			fmt.Printf("%-8s %-8s %s\n", mode, set, h)
			if verbose {
				for _, w := range h.Where {
					fmt.Printf("    %s\n", w)
				}
				for _, m := range h.Misses {
					fmt.Printf("    verbatim miss: %s\n", m)
				}
			}
		}
	}
	if verbose {
		sims, err := e.Similarities(ctx, tune)
		if err != nil {
			return err
		}
		fmt.Println()
		tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "kind\thybrid\tsemantic\tkeyword\tbest sim\ttarget sim\tmean sim\tquery\thybrid's top")
		for i, q := range qs {
			cell := func(o Outcome) string {
				if empty(q.Kind) {
					return fmt.Sprintf("%d res", o.Results)
				}
				if o.Rank == 0 {
					return "miss"
				}
				return fmt.Sprint(o.Rank)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%s\t%s\n", q.Kind, cell(per[recall.Hybrid][i]), cell(per[recall.Semantic][i]), cell(per[recall.Keyword][i]),
				sims[i].Best, sims[i].Target, sims[i].Mean, label(q), per[recall.Hybrid][i].Top)
		}
		tw.Flush()
		printSimilarityRanges(qs, sims)
	}
	return nil
}

func runSweep(ctx context.Context, e *Eval, base recall.Tuning) error {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "floor\tdomain\tk\tweight\thybrid\thybrid paraphrase\tsemantic\tnegatives empty (hybrid, semantic)")
	for _, floor := range []float32{0.25, 0.30, 0.35, 0.40, 0.45, 0.50} {
		for _, domain := range []float32{0, 0.05, 0.08, 0.10, 0.12} {
			t := base
			t.Floor, t.Domain = floor, domain
			sem, _, err := e.Run(ctx, recall.Semantic, t)
			if err != nil {
				return err
			}
			for _, k := range []int{10, 60} {
				for _, w := range []float64{1, 3} {
					t.FusionK, t.ExactWeight = k, w
					hyb, _, err := e.Run(ctx, recall.Hybrid, t)
					if err != nil {
						return err
					}
					fmt.Fprintf(tw, "%.2f\t%.2f\t%d\t%.0f\t%s\t%s\t%s\t%d/%d, %d/%d\n", floor, domain, k, w, hyb["all"], hyb["paraphrase"], sem["all"],
						hyb["negative"].Empty, hyb["negative"].Negatives, sem["negative"].Empty, sem["negative"].Negatives)
				}
			}
		}
	}
	return tw.Flush()
}

// printSimilarityRanges summarises what the floor and the domain test must
// separate: the negatives' best and mean similarities against the
// paraphrases' target and mean similarities.
func printSimilarityRanges(qs []Query, sims []Similarity) {
	type span struct{ lo, hi float32 }
	add := func(sp *span, v float32, first bool) {
		if first || v < sp.lo {
			sp.lo = v
		}
		if first || v > sp.hi {
			sp.hi = v
		}
	}
	var negBest, negMean, parTarget, parMean span
	nNeg, nPar, nFound := 0, 0, 0
	for i, q := range qs {
		s := sims[i]
		if q.Store != "" {
			continue // a tiny store's mean is another matter (see the tiny rows of -v)
		}
		switch q.Kind {
		case "negative":
			add(&negBest, s.Best, nNeg == 0)
			add(&negMean, s.Mean, nNeg == 0)
			nNeg++
		case "paraphrase":
			add(&parMean, s.Mean, nPar == 0)
			nPar++
			if s.Target != 0 {
				add(&parTarget, s.Target, nFound == 0)
				nFound++
			}
		}
	}
	fmt.Printf("\nnegatives (%d): best similarity %.3f to %.3f, mean similarity %.3f to %.3f\n", nNeg, negBest.lo, negBest.hi, negMean.lo, negMean.hi)
	fmt.Printf("paraphrases (%d): target similarity %.3f to %.3f (%d targets in the first 500), mean similarity %.3f to %.3f\n", nPar, parTarget.lo, parTarget.hi, nFound, parMean.lo, parMean.hi)
}

// label is a query as -v prints it, with its tiny store's name.
func label(q Query) string {
	if q.Store != "" {
		return "[" + q.Store + "] " + oneLine(q.Query)
	}
	return oneLine(q.Query)
}

// writeCentroid prints memory/recall/prior.go: the centroid of the corpus as the
// domain test's prior for the embedder.
func writeCentroid(w io.Writer, identity string, histories int, c []float32) error {
	fmt.Fprintf(w, "// Code generated by 'go run ./bench/eval -centroid'; DO NOT EDIT.\n\npackage recall\n\n")
	fmt.Fprintf(w, "// builtinCentroid is the mean of the %s vectors of the aider corpus\n// (%d histories): the direction of a typical store of coding conversations.\nvar builtinCentroid = []float32{", identity, histories)
	for i, x := range c {
		if i%8 == 0 {
			fmt.Fprint(w, "\n\t")
		} else {
			fmt.Fprint(w, " ")
		}
		fmt.Fprintf(w, "%.5f,", x)
	}
	_, err := fmt.Fprint(w, "\n}\n")
	return err
}
