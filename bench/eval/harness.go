package main

import (
	"context"
	"fmt"
	"github.com/deja-dev/deja/harness/every"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// harnessCorpora are the harness corpora (directories of
// ../shared/harness/corpus) the harness queries are written from, with
// the name patterns of their transcripts: the other files beside them
// (metadata, tool results) are not histories.
var harnessCorpora = []struct{ Name, Dir string }{
	{"claude", "claude-code"},
	{"codex", "codex"},
	{"copilot", "copilot-cli"},
	{"qwen", "qwen-code"},
	{"cursor", "cursor"},
	{"pi", "pi"},
}

// harnessGlobs are each corpus's transcripts, relative to its directory.
// The pi store also holds the one OpenClaw transcript, which the same
// reader reads: a single turn, too few for a row of its own.
var harnessGlobs = map[string][]string{
	"claude-code": {"*.jsonl"},
	"codex":       {"*.jsonl", "*.json"},
	"copilot-cli": {"*events.jsonl"},
	"qwen-code":   {"*.jsonl"},
	"cursor":      {"*state.vscdb.derived.db"},
	"pi":          {"*.jsonl", "../openclaw/*.jsonl"},
}

// harnessStage names, per corpus, the file name its reader knows its
// histories by, where the corpus saved them under another: a Cursor store
// is read as state.vscdb. Each such file is indexed from a copy under
// that name, in a folder named after the saved file.
var harnessStage = map[string]string{
	"cursor": "state.vscdb",
}

// stage copies paths under the name harnessStage gives dir's histories,
// into folders under root, and returns the copies' paths.
func stage(paths []string, dir, root string) ([]string, error) {
	name := harnessStage[dir]
	if name == "" {
		return paths, nil
	}
	var out []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		to := filepath.Join(root, dir+"-staged", filepath.Base(p), name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return nil, err
		}
		out = append(out, to)
	}
	return out, nil
}

// registry reads every harness, as 'deja index' does.
func registry() harness.Registry {
	return every.Readers()
}

// HarnessCorpus lists the transcripts of one harness corpus.
func HarnessCorpus(root, dir string) ([]string, error) {
	var paths []string
	for _, g := range harnessGlobs[dir] {
		m, err := filepath.Glob(filepath.Join(root, dir, g))
		if err != nil {
			return nil, err
		}
		for _, p := range m {
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			paths = append(paths, abs)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no transcripts in %s", filepath.Join(root, dir))
	}
	return paths, nil
}

// HarnessEval indexes one harness corpus into a store of its own under
// storeRoot and returns the Eval of its queries (those whose Corpus names
// it).
func HarnessEval(ctx context.Context, root, dir, storeRoot string, emb embed.Embedder, qs []Query) (*Eval, error) {
	paths, err := HarnessCorpus(root, dir)
	if err != nil {
		return nil, err
	}
	if paths, err = stage(paths, dir, storeRoot); err != nil {
		return nil, err
	}
	var mine []Query
	for _, q := range qs {
		if q.Corpus == dir {
			mine = append(mine, q)
		}
	}
	s, err := store.Open(ctx, filepath.Join(storeRoot, dir))
	if err != nil {
		return nil, err
	}
	e := &Eval{Store: s, Embedder: emb, Queries: mine, Harnesses: registry()}
	if _, err := e.Index(ctx, paths); err != nil {
		s.Close()
		return nil, err
	}
	return e, nil
}

// runHarnesses prints the harness corpora's table: per harness and mode,
// paraphrase and exact hit@1/hit@5/MRR and the negatives left empty.
func runHarnesses(ctx context.Context, w io.Writer, root, queriesFile string, emb embed.Embedder, tune recall.Tuning, verbose bool) error {
	qs, err := LoadQueries(queriesFile)
	if err != nil {
		return err
	}
	storeRoot, err := os.MkdirTemp("", "deja-eval-harness-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(storeRoot)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "harness\tmode\tqueries\tparaphrase\texact\tnegatives empty\tmissing literals empty\ttypos\trespelled: typos, others")
	var lines []string
	for _, c := range harnessCorpora {
		e, err := HarnessEval(ctx, root, c.Dir, storeRoot, emb, qs)
		if err != nil {
			fmt.Fprintf(w, "eval: %s skipped: %v\n", c.Name, err)
			continue
		}
		for _, mode := range []recall.Mode{recall.Hybrid, recall.Semantic, recall.Keyword} {
			sc, outs, err := e.Run(ctx, mode, tune)
			if err != nil {
				e.Store.Close()
				return err
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d/%d\t%d/%d\t%s\t%d/%d, %d\n", c.Name, mode, len(e.Queries), sc["paraphrase"], sc["exact"], sc["negative"].Empty, sc["negative"].Negatives,
				sc["missing"].Empty, sc["missing"].Negatives, sc["typo"], sc["typo"].Respelled, sc["typo"].N, respelledOthers(sc))
			if verbose {
				for _, o := range outs {
					res := fmt.Sprint(o.Rank)
					if empty(o.Query.Kind) {
						res = fmt.Sprintf("%d res", o.Results)
					} else if o.Rank == 0 {
						res = "miss"
					}
					lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", c.Name, mode, o.Query.Kind, res, oneLine(o.Query.Query), o.Top))
				}
			}
		}
		e.Store.Close()
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if verbose {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "harness\tmode\tkind\trank\tquery\ttop")
		fmt.Fprintln(tw, strings.Join(lines, "\n"))
		return tw.Flush()
	}
	return nil
}
