// Command perf measures deja's store end to end on a 2-core machine, with
// the built-in embedder, for the benchmark table in docs/benchmarks.md:
//
//   - deja's process alone: a fresh `deja --version` (p50 of 40), the
//     floor under every recall through a service;
//   - indexing the aider corpus (../shared/aider/corpus) into a new store,
//     and re-indexing it with nothing new;
//   - `deja recall` as a fresh process on that store (p50 of 15 runs);
//   - a generated store of -turns turns (default 100,000) written through
//     the real index path: cold-process latency per mode, the first recall
//     of a newly started service, warm in-process latency per mode over the
//     eval's mixed queries (p50, p99, chromem-go's share) against the floor
//     (a flat scan of the same vectors), recall through a deja serve as a
//     user types it (p50 and p99 of fresh processes) and the service's
//     peak RSS, the store's size against the histories', and peak memory.
//
// Run it from the repository root:
//
//	go run ./bench/perf                  # corpus, then the 100k-turn store
//	go run ./bench/perf -turns 0         # corpus only
//	go run ./bench/perf -big /tmp/big    # keep (and reuse) the generated store
//	go run ./bench/perf -turns 1000000 -data corpus -big /tmp/big1m   # a million turns
//
// With -big, the generated histories are reused when the directory holds
// them and the store is not (remove DIR/store to time a full index again
// on the same histories).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == measureFlag {
		os.Exit(runMeasured(os.Args[2:]))
	}
	corpus := flag.String("corpus", "../shared/aider/corpus", "the aider corpus directory")
	turns := flag.Int("turns", 100_000, "turns in the generated store (0 skips it)")
	big := flag.String("big", "", "directory for the generated histories and store (default temporary; reused when it holds a store)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the generated store's index to this file")
	flag.StringVar(&warmProfile, "warmprofile", "", "write a CPU profile of the warm hybrid recalls to this file")
	flag.StringVar(&dataKind, "data", "salad", "the generated store's text: salad (the corpus's words at their frequencies) or corpus (the corpus replicated with shifted dates and paths and a few swapped words)")
	flag.Parse()
	if dataKind != "salad" && dataKind != "corpus" {
		fmt.Fprintln(os.Stderr, "perf: -data is salad or corpus")
		os.Exit(2)
	}
	if err := run(*corpus, *turns, *big, *profile); err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(1)
	}
}

// warmProfile is where -warmprofile writes the warm hybrid recalls' CPU
// profile ("" for none).
var warmProfile string

func run(corpus string, turns int, big, profile string) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "deja-perf-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "deja")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/deja").CombinedOutput(); err != nil {
		return fmt.Errorf("building deja (run from the repository root): %v\n%s", err, out)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("machine: %d CPUs, %s/%s, %s, load average %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))

	if err := startBench(bin); err != nil {
		return err
	}

	paths, _ := filepath.Glob(filepath.Join(corpus, "*.md"))
	corpusPaths = paths
	if len(paths) == 0 {
		fmt.Printf("corpus: skipped, no histories in %s\n\n", corpus)
	} else {
		if err := corpusBench(bin, filepath.Join(tmp, "corpus-store"), paths); err != nil {
			return err
		}
	}
	if turns > 0 {
		if big == "" {
			big = filepath.Join(tmp, "big")
		}
		if err := bigBench(ctx, bin, big, profile, turns, newVocabulary(paths)); err != nil {
			return err
		}
	}
	return nil
}

// deja runs the CLI with the store in dir and returns its wall time and
// peak RSS; the CPU time it used is added to cpuTotal, because on a busy
// machine wall time measures the neighbours too.
var cpuTotal time.Duration

func deja(bin, dir string, args ...string) (time.Duration, int64, string, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, "", err
	}
	cmd := exec.Command(self, append([]string{measureFlag, bin}, args...)...)
	// No service in the background: every recall here is a fresh process
	// that reads the store itself.
	cmd.Env = append(os.Environ(), "DEJA_DATA_DIR="+dir, "DEJA_EMBED_PROVIDER=builtin", "DEJA_SERVE_AUTOSTART=false")
	r, w, err := os.Pipe()
	if err != nil {
		return 0, 0, "", err
	}
	defer r.Close()
	cmd.ExtraFiles = []*os.File{w}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Start()
	w.Close()
	if err != nil {
		return 0, 0, "", err
	}
	var m measured
	decodeErr := json.NewDecoder(r).Decode(&m)
	err = cmd.Wait()
	if decodeErr != nil {
		return 0, 0, out.String(), fmt.Errorf("deja %s: no measure from the runner (%v): %v\n%s", strings.Join(args, " "), decodeErr, err, out.String())
	}
	cpuTotal += m.CPU
	// Exit status 1 is a recall that found nothing: a figure like any other.
	if m.Exit != 0 && (args[0] != "recall" || m.Exit != 1) {
		return m.Took, m.RSS, out.String(), fmt.Errorf("deja %s: exit status %d\n%s", strings.Join(args, " "), m.Exit, out.String())
	}
	return m.Took, m.RSS, out.String(), nil
}

// measureFlag makes this program a runner: it runs the command after it
// and writes its measured figures as JSON to file descriptor 3. deja runs
// each command through one, because a child started straight from this
// process would report this process's peak memory as its own: Linux keeps
// in a process's peak the memory of the image its exec replaces, and Go
// starts a child in its parent's memory until it execs. This process
// holds a 100k-turn index; a runner, a few megabytes.
const measureFlag = "-run-measured"

// measured is what a runner reports of the command it ran.
type measured struct {
	Took time.Duration
	CPU  time.Duration
	RSS  int64
	Exit int
}

// runMeasured is the runner's whole job (see measureFlag).
func runMeasured(args []string) int {
	report := os.NewFile(3, "report")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	var m measured
	m.Took = time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		return 2
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.RSS = ru.Maxrss * 1024
		m.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	m.Exit = cmd.ProcessState.ExitCode()
	if err := json.NewEncoder(report).Encode(m); err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		return 2
	}
	return 0
}

// startBench times deja's process alone, the floor under every recall
// through a service: a fresh 'deja --version', p50 of 40.
func startBench(bin string) error {
	var runs []time.Duration
	for range 40 {
		start := time.Now()
		if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil {
			return fmt.Errorf("deja --version: %v\n%s", err, out)
		}
		runs = append(runs, time.Since(start))
	}
	fmt.Printf("process start: deja --version %s  p50 of 40 fresh processes, p90 %s\n\n", msf(p50(runs)), msf(pct(runs, 90)))
	return nil
}

func corpusBench(bin, st string, paths []string) error {
	cpuTotal = 0
	took, rss, out, err := deja(bin, st, append([]string{"index"}, paths...)...)
	if err != nil {
		return err
	}
	fmt.Printf("corpus (%d histories)\n", len(paths))
	fmt.Printf("  deja index, new store        %8s  CPU %s, peak RSS %s   %s", ms(took), ms(cpuTotal), mb(rss), lastLine(out))
	var again []time.Duration
	for range 5 {
		took, _, _, err := deja(bin, st, append([]string{"index"}, paths...)...)
		if err != nil {
			return err
		}
		again = append(again, took)
	}
	fmt.Printf("  deja index, nothing new      %8s  (p50 of 5, whole process)\n", ms(p50(again)))
	for _, mode := range []string{"hybrid", "semantic", "keyword"} {
		var runs []time.Duration
		var peak int64
		cpuTotal = 0
		for i := range 15 {
			q := corpusQueries[i%len(corpusQueries)]
			took, rss, _, err := deja(bin, st, "recall", "--mode", mode, q)
			if err != nil {
				return err
			}
			runs = append(runs, took)
			peak = max(peak, rss)
		}
		fmt.Printf("  deja recall --mode %-8s  %8s  p50 of 15 fresh processes, p90 %s, CPU %s a run, peak RSS %s\n", mode, ms(p50(runs)), ms(pct(runs, 90)), ms(cpuTotal/15), mb(peak))
	}
	fmt.Println()
	return nil
}

var corpusQueries = []string{
	"the retry wrapper fails to handle the errors", "scripts/blame.py", "chart layout is cramped on small handheld devices",
	"pytest tests/basic/test_repomap.py", "FinishReasonLength", "save the flash card entries so they survive a restart",
}

// bigBench generates histories with turns turns in total (the corpus's
// real turns, reshuffled and numbered so no two are equal), indexes them
// through Store.Index (with a CPU profile of it written to profile, when
// set), and measures recall on the result.
func bigBench(ctx context.Context, bin, dir, profile string, turns int, voc *vocabulary) error {
	histDir := filepath.Join(dir, "histories")
	st := filepath.Join(dir, "store")
	fmt.Printf("generated store (%d turns, -data %s)\n", turns, dataKind)
	if _, err := os.Stat(filepath.Join(st, store.DBFile)); err != nil {
		paths, err := histories(histDir, turns, voc)
		if err != nil {
			return err
		}
		s, err := store.Open(ctx, st)
		if err != nil {
			return err
		}
		emb, err := embed.NewBuiltin()
		if err != nil {
			return err
		}
		if profile != "" {
			f, err := os.Create(profile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
		}
		cpu0 := processCPU()
		start := time.Now()
		rep, err := index.Index(ctx, s, index.Options{Paths: paths, Embedder: emb})
		if err != nil {
			return err
		}
		took, cpu := time.Since(start), processCPU()-cpu0
		pprof.StopCPUProfile()
		s.Close()
		fmt.Printf("  index (real write path)      %8s  CPU %s (%.3f s per 1,000 turns), %d histories, %d sessions, %d turns\n",
			ms(took), ms(cpu), cpu.Seconds()*1000/float64(max(1, rep.NewTurns)), rep.Files, rep.Sessions, rep.NewTurns)
	} else {
		fmt.Printf("  reusing %s\n", st)
	}
	var size int64
	for _, f := range []string{store.DBFile, store.DBFile + "-wal"} {
		if fi, err := os.Stat(filepath.Join(st, f)); err == nil {
			size += fi.Size()
		}
	}
	segs, _ := filepath.Glob(filepath.Join(st, segment.VectorDir, "*.seg"))
	for _, f := range segs {
		if fi, err := os.Stat(f); err == nil {
			size += fi.Size()
		}
	}
	var hist int64
	filepath.WalkDir(histDir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				hist += fi.Size()
			}
		}
		return nil
	})
	fmt.Printf("  store size                   %8s  (deja.db and the vector segments), %.2f× the histories' %s\n", mb(size), float64(size)/float64(max(1, hist)), mb(hist))

	queries := []string{"the retry wrapper fails to handle the errors", "chart layout is cramped on small handheld devices",
		"translate it all to french", "aider/scrape.py", "FinishReasonLength", "ask yes or no with the plain input function"}
	for _, mode := range []string{"keyword", "hybrid", "semantic"} {
		var runs []time.Duration
		var peak int64
		cpuTotal = 0
		for i := range 7 {
			took, rss, _, err := deja(bin, st, "recall", "--mode", mode, queries[i%len(queries)])
			if err != nil {
				return err
			}
			runs = append(runs, took)
			peak = max(peak, rss)
		}
		fmt.Printf("  cold deja recall --mode %-8s %8s  p50 of 7 fresh processes, CPU %s a run, peak RSS %s\n", mode, ms(p50(runs)), ms(cpuTotal/7), mb(peak))
	}

	mixed, err := evalQueries("bench/eval/queries.json")
	if err != nil {
		return err
	}
	if err := servedBench(bin, st, mixed); err != nil {
		return err
	}

	s, err := store.Open(ctx, st)
	if err != nil {
		return err
	}
	defer s.Close()
	emb, err := embed.NewBuiltin()
	if err != nil {
		return err
	}
	if err := warmBench(ctx, s, emb, mixed); err != nil {
		return err
	}
	if err := emptyQueries(ctx, s, emb, mixed); err != nil {
		return err
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Printf("  warm process peak RSS        %8s  (Go heap in use %s)\n", mb(ru.Maxrss*1024), mb(int64(m.HeapInuse)))
	return nil
}

// generate writes histories holding about n turns of text drawn from the
// corpus's own words at their own frequencies (so common words are as
// common, and rare ones as rare, as in real histories), with paths and
// commands. 100 projects share the turns.
func generate(dir string, n int, voc *vocabulary) ([]string, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	const projects = 100
	var paths []string
	perProject := (n + projects - 1) / projects
	written := 0
	for p := 0; p < projects && written < n; p++ {
		pdir := filepath.Join(dir, fmt.Sprintf("project-%03d", p))
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			return nil, err
		}
		path := filepath.Join(pdir, ".aider.chat.history.md")
		var b strings.Builder
		start := time.Date(2024, 1, 1, 9, 0, 0, 0, time.Local)
		for t := 0; t < perProject && written < n; {
			start = start.Add(time.Duration(30+rng.IntN(600)) * time.Minute)
			fmt.Fprintf(&b, "\n# aider chat started at %s\n\n> aider --model sonnet  \n\n", start.Format("2006-01-02 15:04:05"))
			for k := 0; k < 3 && t < perProject && written < n; k++ {
				fmt.Fprintf(&b, "#### %s  \n\n%s\n\n", voc.sentence(rng, 8+rng.IntN(12)), voc.paragraph(rng, 60+rng.IntN(220)))
				fmt.Fprintf(&b, "> Applied edit to %s  \n", voc.file(rng))
				if rng.IntN(4) == 0 {
					fmt.Fprintf(&b, "> Running %s  \n", commands[rng.IntN(len(commands))])
				}
				b.WriteString("\n")
				t++
				written++
			}
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

var commands = []string{"go test ./...", "pytest tests/basic/test_main.py", "npm run build", "make lint", "cargo test", "docker compose up --build", "git diff HEAD~1"}

// vocabulary samples words with their frequency in the corpus; without the
// corpus, a small list of programming words stands in, evenly.
type vocabulary struct {
	words []string
	cum   []int // cumulative counts
}

func newVocabulary(corpus []string) *vocabulary {
	counts := map[string]int{}
	for _, p := range corpus {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, w := range strings.FieldsFunc(string(b), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) > 1 && len(w) < 20 {
				counts[strings.ToLower(w)]++
			}
		}
	}
	if len(counts) == 0 {
		for _, w := range strings.Fields("query tenant database index cache request response handler router test error retry docker image build chart graph login token session react component state python function class file path") {
			counts[w] = 1
		}
	}
	v := &vocabulary{}
	for w := range counts {
		v.words = append(v.words, w)
	}
	slices.Sort(v.words)
	total := 0
	for _, w := range v.words {
		total += counts[w]
		v.cum = append(v.cum, total)
	}
	return v
}

func (v *vocabulary) word(rng *rand.Rand) string {
	x := rng.IntN(v.cum[len(v.cum)-1])
	i, _ := slices.BinarySearch(v.cum, x+1)
	return v.words[i]
}

func (v *vocabulary) sentence(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = v.word(rng)
	}
	return strings.Join(w, " ")
}

func (v *vocabulary) paragraph(rng *rand.Rand, n int) string {
	var b strings.Builder
	for n > 0 {
		k := min(n, 8+rng.IntN(14))
		b.WriteString(v.sentence(rng, k))
		b.WriteString(". ")
		n -= k
	}
	return b.String()
}

func (v *vocabulary) file(rng *rand.Rand) string {
	dirs := []string{"internal/db", "internal/http", "cmd/server", "src/components", "src/store", "aider/coders", "tests/basic", "pkg/api"}
	return fmt.Sprintf("%s/%s_%d.go", dirs[rng.IntN(len(dirs))], v.word(rng), rng.IntN(50))
}

// processCPU is the user and system time this process has used, on all
// its threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func p50(d []time.Duration) time.Duration { return pct(d, 50) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }

func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1] + "\n"
}
