package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deja-dev/deja/serve"
)

// candidates are the --max-tokens tried for each kind on the tuning
// split; each list holds the kind's default.
var candidates = map[kind][]int{
	kindPrompt: {500, 1000, 1500, 2500},
	kindStart:  {300, 600, 1000},
	kindTool:   {75, 150, 300},
}

// figures are one kind's measurements over one replay.
type figures struct {
	calls int
	// related calls are those of sessions whose project has a past in
	// the indexed half; answered and hits count among them.
	related, answered int
	hits, fileHits    int
	// same: pre-tool answers whose past turns are all of the project.
	same int
	// tokens are the answered calls' (related or not), bytes/4 of stdout.
	tokens     []int
	warm, cold []time.Duration
	// unrelated calls are those of sessions whose project has no past;
	// strayHits are their answers (from other projects) that still name
	// what the session then touched.
	unrelated, silent, strayHits int
	// differ counts the calls answered otherwise without the service.
	differ int
}

func tally(calls []hookCall, warm, cold []answer, k kind, projects map[string]string) figures {
	var f figures
	for i, c := range calls {
		if c.kind != k {
			continue
		}
		a := warm[i]
		f.calls++
		f.warm = append(f.warm, a.took)
		if cold != nil {
			f.cold = append(f.cold, cold[i].took)
			if cold[i].text != a.text {
				f.differ++
			}
		}
		if a.text != "" {
			f.tokens = append(f.tokens, a.tokens)
		}
		if !c.related {
			f.unrelated++
			if a.text == "" {
				f.silent++
			} else if file, command := names(a.text, c.project, c.files, c.commands); k != kindTool && (file || command) {
				f.strayHits++
			}
			continue
		}
		f.related++
		if a.text == "" {
			continue
		}
		f.answered++
		if k == kindTool {
			if sameProject(a.text, c.project, projects) {
				f.same++
			}
			continue
		}
		file, command := names(a.text, c.project, c.files, c.commands)
		if file || command {
			f.hits++
		}
		if file {
			f.fileHits++
		}
	}
	return f
}

// score is what tuning weighs: hits for the kinds whose answer can name
// what the session goes on to touch, answers for pre-tool (whose hit is
// trivial: the file or command it names is the one about to be touched).
func (f figures) score(k kind) int {
	if k == kindTool {
		return f.answered
	}
	return f.hits
}

// tune replays the calls with each candidate budget through the warm
// service and keeps, per kind, the smallest budget that gets at least 95 %
// of the best candidate's score: more tokens must buy more hits.
func tune(bin string, env []string, calls []hookCall, projects map[string]string) (map[kind]int, error) {
	chosen := map[kind]int{kindCompact: kindCompact.defaultBudget()}
	for _, k := range []kind{kindPrompt, kindStart, kindTool} {
		var all []figures
		for _, b := range candidates[k] {
			answers, err := fireAll(bin, env, calls, map[kind]int{k: b})
			if err != nil {
				return nil, err
			}
			all = append(all, tally(calls, answers, nil, k, projects))
		}
		best := 0
		for _, f := range all {
			best = max(best, f.score(k))
		}
		pick := -1
		for i, f := range all {
			if pick < 0 && 100*f.score(k) >= 95*best && best > 0 {
				pick = i
			}
		}
		for i, f := range all {
			mark := " "
			if i == pick {
				mark = "*"
			}
			fmt.Printf("  %s %-13s --max-tokens %4d: answered %3d of %3d related, tokens p50 %4d p95 %4d, %s, unrelated silent %s\n",
				mark, k, candidates[k][i], f.answered, f.related, pct(f.tokens, 50), pct(f.tokens, 95), scoreText(k, f), share(f.silent, f.unrelated))
		}
		def := k.defaultBudget()
		switch {
		case pick < 0:
			chosen[k] = def
			fmt.Printf("  %s: no candidate scored anything; the default %d stays\n", k, def)
		case candidates[k][pick] == def:
			chosen[k] = def
			fmt.Printf("  %s: tuning keeps the default %d (the smallest within 95 %% of the best score %d)\n", k, def, best)
		default:
			chosen[k] = candidates[k][pick]
			fmt.Printf("  %s: tuning picks %d over the default %d (the smallest within 95 %% of the best score %d)\n", k, chosen[k], def, best)
		}
	}
	return chosen, nil
}

func scoreText(k kind, f figures) string {
	if k == kindTool {
		return fmt.Sprintf("same project %d", f.same)
	}
	return fmt.Sprintf("hits %d", f.hits)
}

// printTable prints the report's table, one row per kind.
func printTable(calls []hookCall, warm, cold []answer, budgets map[kind]int, projects map[string]string) {
	fmt.Printf("%-13s %6s %5s %15s %15s %17s %17s %19s %19s\n", "kind", "calls", "max", "answered (rel.)", "tokens p50/p95", "warm p50/p95 ms", "no svc p50/p95 ms", "hit rate", "unrelated silent")
	for k := range kinds {
		f := tally(calls, warm, cold, k, projects)
		if f.calls == 0 {
			continue
		}
		hit := fmt.Sprintf("%d/%d %s", f.hits, f.answered, pctText(f.hits, f.answered))
		if k == kindTool {
			hit = fmt.Sprintf("same proj. %s", pctText(f.same, f.answered))
		}
		unrelated := share(f.silent, f.unrelated)
		if k == kindCompact {
			unrelated = "n/a (own session)"
		}
		fmt.Printf("%-13s %6d %5d %15s %15s %17s %17s %19s %19s\n", k, f.calls, budgets[k],
			fmt.Sprintf("%d/%d %s", f.answered, f.related, pctText(f.answered, f.related)),
			fmt.Sprintf("%d / %d", pct(f.tokens, 50), pct(f.tokens, 95)),
			fmt.Sprintf("%.1f / %.1f", msf(pct(f.warm, 50)), msf(pct(f.warm, 95))),
			fmt.Sprintf("%.1f / %.1f", msf(pct(f.cold, 50)), msf(pct(f.cold, 95))),
			hit, unrelated)
		if f.differ > 0 {
			fmt.Printf("  %s: %d of %d calls answered otherwise without the service\n", k, f.differ, f.calls)
		}
		if k != kindTool && f.hits > 0 {
			fmt.Printf("  %s: of the %d hits, %d name a file the session then touched, the rest only a command it then ran\n", k, f.hits, f.fileHits)
		}
		if k != kindTool && k != kindCompact && f.silent < f.unrelated {
			fmt.Printf("  %s: of the %d answers on unrelated sessions, %d name what the session then touched\n", k, f.unrelated-f.silent, f.strayHits)
		}
	}
}

func share(n, of int) string { return fmt.Sprintf("%d/%d %s", n, of, pctText(n, of)) }

func pctText(n, of int) string {
	if of == 0 {
		return "(-)"
	}
	return fmt.Sprintf("(%.0f%%)", 100*float64(n)/float64(of))
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// store is one half indexed into its own data directory, with its own
// home, and the environment the hooks run in against it.
type store struct {
	env     []string
	dataDir string
}

// indexHalf indexes the histories of the sessions in half h into a new
// store under dir.
func indexHalf(bin, dir string, sessions []corpusSession, h int) (store, error) {
	s := store{dataDir: filepath.Join(dir, "data")}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return s, err
	}
	s.env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "DEJA_DATA_DIR="+s.dataDir,
		"DEJA_EMBED_PROVIDER=builtin", "DEJA_SERVE_AUTOSTART=false")
	var paths []string
	for _, cs := range sessions {
		if cs.Half == h && !slices.Contains(paths, cs.History) {
			paths = append(paths, cs.History)
		}
	}
	idx := exec.Command(bin, append([]string{"index", "--quiet"}, paths...)...)
	idx.Env = s.env
	out, err := idx.CombinedOutput()
	if err != nil {
		return s, fmt.Errorf("deja index: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(line, "indexed") {
			fmt.Printf("  half %d: %s\n", h, line)
		}
	}
	return s, nil
}

// startServe starts 'deja serve' on the store and returns once it
// answers; stop stops it as a user would, with 'deja serve --stop'.
func startServe(bin string, env []string, dataDir string) (stop func() error, err error) {
	srv := exec.Command(bin, "serve")
	srv.Env = env
	if err := srv.Start(); err != nil {
		return nil, err
	}
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cmd := exec.Command(bin, "serve", "--stop")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			srv.Process.Kill()
			srv.Wait()
			return fmt.Errorf("deja serve --stop: %v\n%s", err, out)
		}
		srv.Wait()
		return nil
	}
	if err := serve.WaitServing(dataDir, 2*time.Minute, 20*time.Millisecond); err != nil {
		srv.Process.Kill()
		srv.Wait()
		return nil, err
	}
	return stop, nil
}

// printCalls prints each call's answer in a line: its kind, whether its
// project has a past, tokens, whether it hit, and what it was asked.
func printCalls(calls []hookCall, answers []answer) {
	for i, c := range calls {
		a := answers[i]
		past := "past"
		if !c.related {
			past = "none"
		}
		file, command := names(a.text, c.project, c.files, c.commands)
		hit := "-"
		switch {
		case a.text == "":
			hit = "silent"
		case c.kind == kindTool:
			hit = "line"
		case file:
			hit = "hit:file"
		case command:
			hit = "hit:command"
		}
		what := c.input["prompt"]
		if c.toolInput != nil {
			what = c.toolInput["file_path"] + c.toolInput["command"]
		}
		fmt.Printf("  %-13s %s %5d tok %7.1f ms %-11s %s  %s\n", c.kind, past, a.tokens, msf(a.took), hit, c.project, oneLine(what, 80))
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
