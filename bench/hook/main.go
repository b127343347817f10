// Command hook measures what 'deja hook' costs an agent: it indexes the
// aider corpus in ../shared/aider/corpus into a new store with the
// built-in embedder, starts 'deja serve' on it, and replays the eval's
// queries (bench/eval/queries.json) as Claude Code UserPromptSubmit hook
// calls, each a fresh 'deja hook claude-code' process as the agent runs
// it. It prints the tokens each prompt gets (bytes/4, as the hook counts),
// the share of prompts that get nothing, how many of the eval's negatives
// get anything, and the latency of each call through the warm service and,
// with the service stopped, from the store. Without the corpus it says so
// and exits 0.
//
//	go run ./bench/hook
//	go run ./bench/hook -v    # and each prompt's tokens and latency
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deja-dev/deja/serve"
)

type query struct {
	Query string `json:"query"`
	Kind  string `json:"kind"`
	Store string `json:"store,omitempty"`
}

func main() {
	corpus := flag.String("corpus", "../shared/aider/corpus", "the aider corpus directory")
	queries := flag.String("queries", "bench/eval/queries.json", "the eval queries")
	verbose := flag.Bool("v", false, "print each prompt's tokens and latency")
	flag.Parse()
	if err := run(*corpus, *queries, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "hook:", err)
		os.Exit(1)
	}
}

func run(corpus, queriesFile string, verbose bool) error {
	paths, _ := filepath.Glob(filepath.Join(corpus, "*.md"))
	if len(paths) == 0 {
		fmt.Printf("hook: skipped: no histories in %s (pass -corpus DIR)\n", corpus)
		return nil
	}
	var qs []query
	data, err := os.ReadFile(queriesFile)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &qs); err != nil {
		return fmt.Errorf("%s: %w", queriesFile, err)
	}
	qs = slices.DeleteFunc(qs, func(q query) bool { return q.Store != "" })

	tmp, err := os.MkdirTemp("", "deja-bench-hook-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "deja")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/deja").CombinedOutput(); err != nil {
		return fmt.Errorf("building deja: %v\n%s", err, out)
	}
	dataDir := filepath.Join(tmp, "data")
	env := append(os.Environ(), "DEJA_DATA_DIR="+dataDir, "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"DEJA_EMBED_PROVIDER=builtin", "DEJA_SERVE_AUTOSTART=false")
	idx := exec.Command(bin, append([]string{"index"}, paths...)...)
	idx.Env = env
	out, err := idx.CombinedOutput()
	if err != nil {
		return fmt.Errorf("deja index: %v\n%s", err, out)
	}
	fmt.Print(string(out))

	srv := exec.Command(bin, "serve")
	srv.Env = env
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Process.Kill()
	if err := serve.WaitServing(dataDir, 2*time.Minute, 20*time.Millisecond); err != nil {
		return err
	}
	first, _, err := hook(bin, env, "warm-up", "the tests fail after the refactor")
	if err != nil {
		return err
	}
	warm, err := replay(bin, env, qs, verbose)
	if err != nil {
		return err
	}
	stop := exec.Command(bin, "serve", "--stop")
	stop.Env = env
	if out, err := stop.CombinedOutput(); err != nil {
		return fmt.Errorf("deja serve --stop: %v\n%s", err, out)
	}
	srv.Wait()
	cold, err := replay(bin, env, qs, false)
	if err != nil {
		return err
	}
	for i := range warm.tokens {
		if warm.tokens[i] != cold.tokens[i] {
			return fmt.Errorf("prompt %q got %d tokens warm and %d cold: the service must answer as the store does", qs[i].Query, warm.tokens[i], cold.tokens[i])
		}
	}

	var got []int
	nothing, negatives, negInjected := 0, 0, 0
	for i, q := range qs {
		if warm.tokens[i] == 0 {
			nothing++
		} else {
			got = append(got, warm.tokens[i])
		}
		if q.Kind == "negative" || q.Kind == "missing" {
			negatives++
			if warm.tokens[i] > 0 {
				negInjected++
			}
		}
	}
	fmt.Printf("prompts %d (the eval's queries on the corpus), hook budget 1500 tokens\n", len(qs))
	fmt.Printf("tokens per prompt: p50 %d  p95 %d  max %d (of prompts that got any: p50 %d  p95 %d)\n",
		pct(warm.tokens, 50), pct(warm.tokens, 95), pct(warm.tokens, 100), pct(got, 50), pct(got, 95))
	fmt.Printf("prompts that got nothing: %d of %d (%.0f %%)\n", nothing, len(qs), 100*float64(nothing)/float64(len(qs)))
	fmt.Printf("negatives and missing literals that got anything: %d of %d\n", negInjected, negatives)
	fmt.Printf("latency per hook call, warm service: p50 %s  p95 %s  max %s (first call %s)\n",
		ms(pct(warm.took, 50)), ms(pct(warm.took, 95)), ms(pct(warm.took, 100)), ms(first))
	fmt.Printf("latency per hook call, no service:   p50 %s  p95 %s  max %s\n",
		ms(pct(cold.took, 50)), ms(pct(cold.took, 95)), ms(pct(cold.took, 100)))
	return nil
}

type pass struct {
	tokens []int
	took   []time.Duration
}

func replay(bin string, env []string, qs []query, verbose bool) (pass, error) {
	var p pass
	for i, q := range qs {
		took, text, err := hook(bin, env, fmt.Sprintf("bench-%d", i), q.Query)
		if err != nil {
			return p, err
		}
		p.tokens = append(p.tokens, len(text)/4)
		p.took = append(p.took, took)
		if verbose {
			fmt.Printf("%-10s %5d tokens %8s  %s\n", q.Kind, len(text)/4, ms(took), q.Query)
		}
	}
	return p, nil
}

// hook runs one 'deja hook claude-code' as Claude Code does and returns
// how long the process took and what it printed.
func hook(bin string, env []string, session, prompt string) (time.Duration, string, error) {
	in, _ := json.Marshal(map[string]string{
		"session_id": session, "transcript_path": "", "cwd": os.TempDir(),
		"hook_event_name": "UserPromptSubmit", "permission_mode": "default", "prompt": prompt,
	})
	cmd := exec.Command(bin, "hook", "claude-code")
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return took, "", fmt.Errorf("deja hook: %v\n%s", err, errb.String())
	}
	if s := strings.TrimSpace(errb.String()); s != "" {
		return took, "", fmt.Errorf("deja hook said: %s", s)
	}
	return took, out.String(), nil
}

func pct[T int | time.Duration](xs []T, p int) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(i-1, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
