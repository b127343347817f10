package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// dataKind is what the generated store holds: "salad", text drawn from the
// corpus's words at their frequencies, or "corpus", the real corpus
// replicated with shifted dates and paths and a few swapped words.
var dataKind = "salad"

// corpusPaths are the corpus histories replicate copies.
var corpusPaths []string

// histories returns the generated store's histories, writing them under
// dir when they are not there yet.
func histories(dir string, turns int, voc *vocabulary) ([]string, error) {
	if dataKind == "corpus" {
		paths, err := filepath.Glob(filepath.Join(dir, "copy-*", "*", ".aider.chat.history.md"))
		if err != nil || len(paths) > 0 {
			return paths, err
		}
		return replicate(dir, corpusPaths, turns)
	}
	paths, err := filepath.Glob(filepath.Join(dir, "project-*", ".aider.chat.history.md"))
	if err != nil || len(paths) > 0 {
		return paths, err
	}
	return generate(dir, turns, voc)
}

var (
	startedRe = regexp.MustCompile(`(?m)^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})`)
	recordRe  = regexp.MustCompile(`(?m)^> (Applied edit to|Added|Creating empty file) `)
	// swaps are word pairs a copy exchanges, a different few per copy, so
	// that no two copies' turns are the same text.
	swaps = [][2]string{{"function", "method"}, {"error", "failure"}, {"file", "document"}, {"test", "check"},
		{"change", "update"}, {"add", "insert"}, {"remove", "delete"}, {"fix", "repair"}, {"use", "employ"}, {"show", "display"}}
	wordRe = regexp.MustCompile(`\b[a-z]+\b`)
)

// replicate writes copies of the corpus histories until they hold about
// n turns: copy k's sessions start k weeks later, its file records sit
// under vK/, and it exchanges two word pairs of swaps. Each copy of each
// history is a project of its own, as histories of many repositories are.
func replicate(dir string, corpus []string, n int) ([]string, error) {
	if len(corpus) == 0 {
		return nil, fmt.Errorf("-data corpus needs the corpus (-corpus DIR)")
	}
	texts := make([]string, len(corpus))
	perCopy := 0
	for i, p := range corpus {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		texts[i] = string(b)
		for _, sess := range aider.Parse(b, aider.Options{Path: p}).Sessions {
			perCopy += len(chunk.Turns(sess)) // as the index counts them
		}
	}
	copies := max(1, (n+perCopy-1)/max(perCopy, 1))
	var paths []string
	for k := 1; k <= copies; k++ {
		a, b := swaps[k%len(swaps)], swaps[(k*3+1)%len(swaps)]
		swap := map[string]string{a[0]: a[1], a[1]: a[0], b[0]: b[1], b[1]: b[0]}
		for i, text := range texts {
			text = startedRe.ReplaceAllStringFunc(text, func(m string) string {
				t, err := time.ParseInLocation("2006-01-02 15:04:05", startedRe.FindStringSubmatch(m)[1], time.Local)
				if err != nil {
					return m
				}
				return "# aider chat started at " + t.AddDate(0, 0, 7*k).Format("2006-01-02 15:04:05")
			})
			text = recordRe.ReplaceAllString(text, fmt.Sprintf("> $1 v%d/", k))
			text = wordRe.ReplaceAllStringFunc(text, func(w string) string {
				if s, ok := swap[w]; ok {
					return s
				}
				return w
			})
			pdir := filepath.Join(dir, fmt.Sprintf("copy-%03d", k), fmt.Sprintf("%02d-%s", i, strings.SplitN(filepath.Base(corpus[i]), "__", 2)[0]))
			if err := os.MkdirAll(pdir, 0o755); err != nil {
				return nil, err
			}
			path := filepath.Join(pdir, ".aider.chat.history.md")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return nil, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// emptyQueries runs the eval's negatives and missing literals (those of
// the corpus, not of its tiny stores) against the generated store in every
// mode and prints how many return nothing, as they must at any size.
func emptyQueries(ctx context.Context, s *store.Store, emb embed.Embedder, qs []evalQuery) error {
	for _, mode := range []recall.Mode{recall.Hybrid, recall.Semantic, recall.Keyword} {
		empty, total := map[string]int{}, map[string]int{}
		for _, q := range qs {
			if q.Kind != "negative" && q.Kind != "missing" {
				continue
			}
			r, err := recall.Recall(ctx, s, recall.Options{Query: q.Query, Mode: mode, Embedder: emb})
			if err != nil {
				return fmt.Errorf("%q: %w", q.Query, err)
			}
			total[q.Kind]++
			if len(r.Results) == 0 {
				empty[q.Kind]++
			}
		}
		fmt.Printf("  %-8s negatives empty %d/%d, missing literals empty %d/%d\n", mode, empty["negative"], total["negative"], empty["missing"], total["missing"])
	}
	return nil
}
