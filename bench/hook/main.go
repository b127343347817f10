// Command hook measures what 'deja hook' costs an agent and what it
// brings. Each hook call is a fresh 'deja hook claude-code' process, as the
// agent runs it, with the built-in embedder.
//
// First it indexes the aider corpus in ../shared/aider/corpus and replays
// the eval's queries (bench/eval/queries.json) as UserPromptSubmit hooks:
// the tokens each prompt gets (bytes/4, as the hook counts), the share of
// prompts that get nothing, how many of the eval's negatives get anything,
// and the latency through a warm 'deja serve' and, with it stopped, from
// the store.
//
// Then it replays real sessions (replay.go): the sessions of the harness
// corpora (../shared/harness/corpus) and of the aider corpus are split in
// two halves; one half is indexed and each session of the other is played
// as Claude Code would fire its hooks: a session start, each prompt, a
// pre-tool hook before each edit and command, a compaction. It tunes each
// kind's --max-tokens with half A indexed and half B replayed, then
// reports with half B indexed and half A replayed: per kind, the tokens,
// the latency warm and without a service, the hit rate (the answer names a
// file or command the session then touched) and the silence on sessions
// whose project has no past. Without the corpora it says so and exits 0.
//
//	go run ./bench/hook
//	go run ./bench/hook -v    # and each eval prompt's tokens and latency
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
)

type query struct {
	Query string `json:"query"`
	Kind  string `json:"kind"`
	Store string `json:"store,omitempty"`
}

func main() {
	corpus := flag.String("corpus", "../shared/aider/corpus", "the aider corpus directory")
	harnessDir := flag.String("harness", "../shared/harness/corpus", "the harness corpora, one directory per agent")
	queries := flag.String("queries", "bench/eval/queries.json", "the eval queries")
	verbose := flag.Bool("v", false, "print each eval prompt's tokens and latency")
	var c caps
	flag.IntVar(&c.sessionsPerProject, "sessions", 25, "most held-out sessions replayed per project")
	flag.IntVar(&c.promptsPerSession, "prompts", 4, "most prompts replayed per session")
	flag.IntVar(&c.toolsPerSession, "tools", 4, "most pre-tool calls replayed per session")
	flag.Parse()
	if err := run(*corpus, *harnessDir, *queries, c, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "hook:", err)
		os.Exit(1)
	}
}

func run(corpus, harnessDir, queriesFile string, c caps, verbose bool) error {
	paths, _ := filepath.Glob(filepath.Join(corpus, "*.md"))
	if _, err := os.Stat(harnessDir); len(paths) == 0 && err != nil {
		fmt.Printf("hook: skipped: no histories in %s nor %s (pass -corpus DIR, -harness DIR)\n", corpus, harnessDir)
		return nil
	}
	tmp, err := os.MkdirTemp("", "deja-bench-hook-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "deja")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/deja").CombinedOutput(); err != nil {
		return fmt.Errorf("building deja: %v\n%s", err, out)
	}
	if len(paths) == 0 {
		fmt.Printf("eval prompts: skipped: no histories in %s\n", corpus)
	} else if err := evalPrompts(bin, filepath.Join(tmp, "eval"), paths, queriesFile, verbose); err != nil {
		return err
	}
	fmt.Println()
	return replaySessions(bin, filepath.Join(tmp, "replay"), harnessDir, corpus, c, verbose)
}

// evalPrompts replays the eval's queries as prompt hooks on the aider
// corpus.
func evalPrompts(bin, tmp string, paths []string, queriesFile string, verbose bool) error {
	var qs []query
	data, err := os.ReadFile(queriesFile)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &qs); err != nil {
		return fmt.Errorf("%s: %w", queriesFile, err)
	}
	qs = slices.DeleteFunc(qs, func(q query) bool { return q.Store != "" })

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

	stop, err := startServe(bin, env, dataDir)
	if err != nil {
		return err
	}
	defer stop()
	first, _, err := hook(bin, env, "warm-up", "the tests fail after the refactor")
	if err != nil {
		return err
	}
	warm, err := replay(bin, env, qs, verbose)
	if err != nil {
		return err
	}
	if err := stop(); err != nil {
		return err
	}
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

// replaySessions tunes on one split of the corpora's sessions and reports
// on the other.
func replaySessions(bin, tmp, harnessDir, aiderDir string, c caps, verbose bool) error {
	halves, err := layout(harnessDir, aiderDir, filepath.Join(tmp, "projects"))
	if err != nil {
		return err
	}
	if len(halves) == 0 {
		fmt.Printf("session replay: skipped: no histories in %s nor %s\n", harnessDir, aiderDir)
		return nil
	}
	sessions, err := readSessions(bin, append(os.Environ(), "HOME="+tmp), halves)
	if err != nil {
		return err
	}
	var harnesses []string
	for _, s := range sessions {
		if !slices.Contains(harnesses, s.Harness) {
			harnesses = append(harnesses, s.Harness)
		}
	}
	slices.Sort(harnesses)
	fmt.Printf("session replay: %d sessions of %s in %d histories, split in two halves (harness files by name, aider sessions one by one)\n",
		len(sessions), strings.Join(harnesses, ", "), len(halves))
	fmt.Printf("caps: %d held-out sessions per project, %d prompts and %d pre-tool calls per session; held-out sessions with no prompt and subagents are not replayed\n",
		c.sessionsPerProject, c.promptsPerSession, c.toolsPerSession)

	fmt.Println("\ntuning: half 0 indexed, half 1 replayed through the warm service (* the budget chosen)")
	tuning := plan(sessions, 0, c)
	describe(tuning)
	st, err := indexHalf(bin, filepath.Join(tmp, "tune"), sessions, 0)
	if err != nil {
		return err
	}
	projects, err := indexedProjects(bin, st.env)
	if err != nil {
		return err
	}
	stop, err := startServe(bin, st.env, st.dataDir)
	if err != nil {
		return err
	}
	budgets, err := tune(bin, st.env, warmUp(bin, st.env, tuning.calls), projects)
	stop()
	if err != nil {
		return err
	}

	fmt.Println("\nreport: half 1 indexed, half 0 replayed with the budgets chosen above, through the warm service, then with it stopped")
	held := plan(sessions, 1, c)
	describe(held)
	if st, err = indexHalf(bin, filepath.Join(tmp, "report"), sessions, 1); err != nil {
		return err
	}
	if projects, err = indexedProjects(bin, st.env); err != nil {
		return err
	}
	if stop, err = startServe(bin, st.env, st.dataDir); err != nil {
		return err
	}
	defer stop()
	warm, err := fireAll(bin, st.env, warmUp(bin, st.env, held.calls), budgets)
	if err != nil {
		return err
	}
	if err := stop(); err != nil {
		return err
	}
	cold, err := fireAll(bin, st.env, held.calls, budgets)
	if err != nil {
		return err
	}
	if verbose {
		printCalls(held.calls, warm)
	}
	floor, err := processFloor(bin, st.env)
	if err != nil {
		return err
	}
	fmt.Println()
	printTable(held.calls, warm, cold, budgets, projects)
	fmt.Printf("\nthe floor: a 'deja hook claude-code' that only reads its input (an event it does not answer) takes p50 %.1f ms, p95 %.1f ms here.\n",
		msf(pct(floor, 50)), msf(pct(floor, 95)))
	fmt.Println(`
answered (rel.): calls of sessions whose project has a past in the indexed half that got any answer.
tokens: bytes/4 of what the hook printed, over the calls answered. Latency: the whole 'deja hook' process.
hit rate: answers that name a file the session then read or edited (by its path in the project), or the
invocation of a command it then ran ('go test'; not ls, cat, git status), from that call on; for pre-tool,
the share of answers whose earlier turns are all of the same project (the file or command is the one about
to be touched by construction). unrelated silent: calls of sessions whose project has no past in the indexed
half that got nothing. compaction reads the session's own transcript, so its hits are its own records.
Only the prompt hook asks the service; session start, pre-tool and compaction read the store or the
transcript either way, so their two latency columns measure the same path twice.`)
	return nil
}

// processFloor times 'deja hook' answering an event it does not answer:
// the cost of starting the process and reading the input, which every
// hook call pays.
func processFloor(bin string, env []string) ([]time.Duration, error) {
	var took []time.Duration
	for range 20 {
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Env = env
		cmd.Stdin = strings.NewReader(`{"session_id":"floor","hook_event_name":"Stop"}`)
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("deja hook (floor): %v", err)
		}
		took = append(took, time.Since(start))
	}
	return took, nil
}

// describe says how many sessions a plan replays.
func describe(h heldOut) {
	n := map[kind]int{}
	for _, c := range h.calls {
		n[c.kind]++
	}
	fmt.Printf("  %d held-out sessions replayed (%d with a past in their project, %d without; %d left out by the cap): %d prompts, %d pre-tool calls\n",
		h.sessions, h.related, h.unrelated, h.capped, n[kindPrompt], n[kindTool])
}

// warmUp fires one prompt hook so that the service has loaded what it
// holds before the calls are timed, and returns the calls.
func warmUp(bin string, env []string, calls []hookCall) []hookCall {
	for _, c := range calls {
		if c.kind == kindPrompt {
			fire(bin, env, c, c.kind.defaultBudget())
			break
		}
	}
	return calls
}
