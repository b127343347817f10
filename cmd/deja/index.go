package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/team"
)

const indexLong = `Index the histories of

  HARNESSES

into deja's store, so 'deja recall' finds their turns. With no PATH, deja
indexes the histories 'deja sources' finds and every history it indexed
before; a PATH is a history file or store, or a directory searched for
.aider.chat.history.md files in it and two levels below it, and for the
other harnesses' transcripts in it and four levels below it (JSONL, JSON
and SQLite files, each read only when its harness claims it), so
~/.codex/sessions/YYYY/MM/DD is reached (hidden
directories, node_modules and vendor are skipped; symlinks are followed, and a
history reached twice is indexed once). Each file goes to the harness that
claims it.

Indexing is incremental: a file is read again only from the start of its last
session, a file that did not change is not read at all, and only new turns are
embedded. Sessions that leave a file (deleted, or cut by hand) stay indexed;
'deja forget' drops them. One index runs at a time: a second one waits for
the first (--wait), printing who holds the lock.

With a team configured (team.url), index then does what
'deja team sync' does: it publishes the shared projects' new turns and folds
in the team's. A team it cannot reach leaves the index as it is: a warning
says what to check, and --json reports it under "team".

--rebuild is for a damaged store ('deja doctor' says when): it moves the
store into damaged-TIME in the data directory (nothing is deleted), indexes
every history the old store knew and 'deja sources' finds into a new one,
keeps the sessions you forgot forgotten, and names the sessions it could not
bring back because their histories are gone.

The store is $DEJA_DATA_DIR, else $XDG_DATA_HOME/deja (~/.local/share/deja).`

// defaultLockWait is how long index and forget wait for another deja
// writing the store: a first index of a large history takes minutes.
const defaultLockWait = 10 * time.Minute

type indexOptions struct {
	paths   []string
	full    bool
	rebuild bool
	wait    time.Duration
	json    bool
}

func newIndexCmd(io *IO) *cobra.Command {
	var opts indexOptions
	cmd := &cobra.Command{
		Use:   "index [PATH...]",
		Short: "Index histories so recall can find their turns",
		Long:  withHarnesses(indexLong),
		Example: `  deja index
  deja index ~/src/shop
  DEJA_DATA_DIR=$(mktemp -d) deja index testdata/sample`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return runIndex(cmd, io, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.full, "full", false, "re-read every history whole and re-embed every turn")
	cmd.Flags().BoolVar(&opts.rebuild, "rebuild", false, "move a damaged store aside and rebuild it from the histories")
	cmd.Flags().DurationVar(&opts.wait, "wait", defaultLockWait, "how long to wait while another deja writes the store (0: fail at once)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the run's counts as one JSON object (warnings stay on stderr too)")
	return cmd
}

// indexOutput is 'deja index --json': what the run did.
type indexOutput struct {
	Files    int      `json:"files"`
	Read     int      `json:"read"`
	Sessions int      `json:"sessions"`
	NewTurns int      `json:"new_turns"`
	Embedded int      `json:"embedded"`
	Embedder string   `json:"embedder"`
	Skipped  int      `json:"skipped"`
	Missing  int      `json:"missing"`
	Redacted int      `json:"redacted"`
	Lacking  int      `json:"lacking_vectors"`
	TookMS   int64    `json:"took_ms"`
	Problems []string `json:"problems"`
	// Warnings are what the histories' parses skipped or inferred.
	Warnings []string `json:"warnings"`
	// Team is what the sync after the index did, when a team is configured.
	Team *indexTeam `json:"team,omitempty"`
	// Rebuild is what --rebuild set aside and could not bring back.
	Rebuild *rebuildOutput `json:"rebuild,omitempty"`
}

// rebuildOutput is what 'deja index --rebuild' did with the old store.
type rebuildOutput struct {
	Aside    string                  `json:"aside"`
	Lost     []store.SalvagedSession `json:"lost"`
	Problems []string                `json:"problems"`
}

// indexMemoryLimit is the heap a run asks the garbage collector to stay
// under (unless GOMEMLIMIT says otherwise): a soft bound, reached only
// by a history of hundreds of MB read whole, where the heap otherwise grows
// to twice what is live (a 250 MB transcript: 667 MB peak RSS without it,
// under 512 MB with it). An ordinary run holds tens of MB and never nears it.
const indexMemoryLimit = 400 << 20

func runIndex(cmd *cobra.Command, io *IO, opts indexOptions) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(indexMemoryLimit))
	}
	ctx := cmd.Context()
	cfg, err := loadConfig(cmd, nil)
	if err != nil {
		return err
	}
	lock := store.LockOptions{
		Wait: opts.wait,
		Waiting: func(pid int) {
			fmt.Fprintf(io.Err, "deja: another deja (pid %d) is writing the store; waiting up to %s\n", pid, opts.wait)
		},
	}
	var salvage *store.Salvage
	if opts.rebuild {
		if salvage, err = store.SetAside(ctx, cfg.DataDir, lock); err != nil {
			return err
		}
		if salvage.Aside != "" {
			fmt.Fprintf(io.Err, "deja: moved the store to %s (nothing was deleted); rebuilding it from the histories\n", salvage.Aside)
		}
	}
	sto, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer sto.Close()
	if salvage != nil {
		if err := sto.Restore(ctx, salvage); err != nil {
			return err
		}
	}

	paths, problems := historyPaths(opts.paths, claimedByTranscriptHarness(enabledHarnesses(cfg)))
	if len(opts.paths) == 0 {
		paths, problems, err = defaultPaths(ctx, cfg, sto)
		if err != nil {
			return err
		}
	}
	if salvage != nil {
		paths = appendNew(paths, salvage.Files)
	}
	for _, p := range problems {
		fmt.Fprintln(io.Err, "deja: warning:", quote.Line(p))
	}
	if len(paths) == 0 && salvage != nil {
		if _, err := reportRebuild(ctx, io, sto, salvage); err != nil {
			return err
		}
		return exitError{code: 1, msg: "no histories to index into the new store: name them (deja index PATH), or see 'deja sources' for where deja looks"}
	}
	if len(paths) == 0 {
		if len(opts.paths) == 0 && cfg.Team.Enabled() {
			return syncOnly(ctx, io, cfg, sto, opts.json)
		}
		return exitError{code: 1, msg: "no histories to index: name a file or directory (deja index PATH), or see 'deja sources' for where deja looks"}
	}

	emb, why := selectEmbedder(ctx, io, cfg)
	if emb == nil && cfg.Embed.Provider == "ollama" {
		// Chosen explicitly, Ollama is not optional: turns stored without
		// its vectors would look indexed and recall only by keyword.
		return exitError{code: exitFailed, msg: why + "; nothing indexed (embed.provider is ollama; set it to auto to fall back to the built-in embedder)"}
	}
	if emb == nil {
		fmt.Fprintf(io.Err, "deja: warning: %s; turns are indexed for keyword recall and embedded by a later 'deja index'\n", why)
	}
	bar := newProgressBar(io)
	iopts := index.Options{
		Paths:     paths,
		Harnesses: withNotes(enabledHarnesses(cfg)),
		Budget:    cfg.Chunk.Budget,
		Full:      opts.full,
		Progress:  bar.update,
		Lock:      lock,
	}
	if emb != nil {
		iopts.Embedder = emb
	}
	rep, err := index.Index(ctx, sto, iopts)
	bar.done()
	if err != nil {
		return err
	}
	for _, p := range slices.Concat(rep.Problems, rep.Warnings) {
		fmt.Fprintln(io.Err, "deja: warning:", quote.Line(p))
	}
	embedder := "no embedder"
	if emb != nil {
		embedder = emb.Identity()
	}
	teamRep := syncAfterIndex(ctx, io, cfg, sto, iopts.Embedder)
	var rebuilt *rebuildOutput
	if salvage != nil {
		if rebuilt, err = reportRebuild(ctx, io, sto, salvage); err != nil {
			return err
		}
	}
	if opts.json {
		out := indexOutput{Files: rep.Files, Read: rep.Read, Sessions: rep.Sessions, NewTurns: rep.NewTurns,
			Embedded: rep.Embedded, Embedder: embedder, Skipped: rep.Skipped, Missing: rep.Missing,
			Redacted: rep.Redacted, Lacking: rep.Lacking, TookMS: rep.Took.Milliseconds(), Problems: rep.Problems, Warnings: rep.Warnings,
			Team: teamRep, Rebuild: rebuilt}
		if out.Problems == nil {
			out.Problems = []string{}
		}
		if out.Warnings == nil {
			out.Warnings = []string{}
		}
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	if rep.Files > 0 && rep.Skipped == rep.Files {
		// A script must not take a run that indexed nothing for a success.
		what := fmt.Sprintf("all %d files were", rep.Files)
		if rep.Files == 1 {
			what = "the file was"
		}
		return exitError{code: exitFailed, msg: fmt.Sprintf("nothing indexed: %s skipped (the warnings above say why)", what)}
	}
	if !opts.json {
		printIndexed(io, rep, embedder, opts.full)
		if teamRep != nil && teamRep.Synced {
			printIndexTeam(io, teamRep.SyncReport)
		}
	}
	if rep.Redacted > 0 {
		fmt.Fprintf(io.Err, "deja: %s redacted before indexing\n", words.Count(rep.Redacted, "secret"))
	}
	if rep.Lacking > 0 {
		fmt.Fprintf(io.Err, "deja: %s %s vectors; the next 'deja index' embeds them\n", words.Count(rep.Lacking, "turn"), words.Verb(rep.Lacking, "lack"))
		if cfg.Embed.Provider == "ollama" {
			return exitError{code: exitFailed, msg: fmt.Sprintf("embedding with %s stopped during the run (the warning above says why): run 'deja index' again once Ollama answers", embedder)}
		}
	}
	return nil
}

// lostShown bounds how many lost sessions a rebuild names on stderr;
// --json lists them all.
const lostShown = 20

// reportRebuild says on stderr what a rebuild could not read of the old
// store and which of its sessions the new one lacks.
func reportRebuild(ctx context.Context, io *IO, sto *store.Store, salvage *store.Salvage) (*rebuildOutput, error) {
	lost, err := sto.Lost(ctx, salvage)
	if err != nil {
		return nil, err
	}
	for _, p := range salvage.Problems {
		fmt.Fprintln(io.Err, "deja: warning: the old store:", p)
	}
	if len(lost) > 0 {
		fmt.Fprintf(io.Err, "deja: could not recover %s, their histories being gone or changed (the old store keeps them in %s):\n", words.Count(len(lost), "session"), salvage.Aside)
		for i, l := range lost {
			if i == lostShown {
				fmt.Fprintf(io.Err, "  and %d more ('deja index --rebuild --json' lists them all)\n", len(lost)-lostShown)
				break
			}
			fmt.Fprintf(io.Err, "  %s (%s)\n", quote.Line(l.ID), quote.Line(homeShort(l.Path)))
		}
	} else if salvage.Aside != "" && len(salvage.Sessions) > 0 {
		fmt.Fprintf(io.Err, "deja: every one of the old store's %d sessions was recovered\n", len(salvage.Sessions))
	}
	out := &rebuildOutput{Aside: salvage.Aside, Lost: lost, Problems: salvage.Problems}
	if out.Lost == nil {
		out.Lost = []store.SalvagedSession{}
	}
	if out.Problems == nil {
		out.Problems = []string{}
	}
	return out, nil
}

// appendNew appends to paths those of more it does not hold yet.
func appendNew(paths, more []string) []string {
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		seen[p] = true
	}
	for _, p := range more {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return paths
}

// printIndexed is the run's one-line summary for people.
// With --full every turn read is written again, new or not: they are
// counted as written, not called new.
// Each count reads as people read it: "1 file", "2 files".
func printIndexed(io *IO, rep index.Report, embedder string, full bool) {
	turns := words.Count(rep.NewTurns, "new turn")
	if full {
		turns = words.Count(rep.NewTurns, "turn") + " written"
	}
	fmt.Fprintf(io.Out, "indexed %s (%d read), %s, %s, %d embedded (%s), %d skipped",
		words.Count(rep.Files, "file"), rep.Read, words.Count(rep.Sessions, "session"), turns, rep.Embedded, embedder, rep.Skipped)
	if rep.Missing > 0 {
		fmt.Fprintf(io.Out, ", %d gone (their sessions stay)", rep.Missing)
	}
	fmt.Fprintf(io.Out, " in %s\n", roundDuration(rep.Took))
}

// printIndexTeam is the line the sync after an index adds to its summary.
// syncOnly is 'deja index' on a machine that has no history of its own
// yet but belongs to a team: it folds in (and publishes) what the team
// has, as an index does after indexing.
func syncOnly(ctx context.Context, io *IO, cfg config.Config, sto *store.Store, asJSON bool) error {
	emb, why := selectEmbedder(ctx, io, cfg)
	if emb == nil {
		fmt.Fprintf(io.Err, "deja: warning: %s; folded turns are embedded by a later 'deja index'\n", why)
	}
	teamRep := syncAfterIndex(ctx, io, cfg, sto, emb)
	if asJSON {
		embedder := "no embedder"
		if emb != nil {
			embedder = emb.Identity()
		}
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(indexOutput{Embedder: embedder, Problems: []string{}, Warnings: []string{}, Team: teamRep}); err != nil {
			return err
		}
	}
	if !teamRep.Synced {
		return exitError{code: 1, msg: "no histories of this machine's own to index, and the team was not synced (the warning above says why)"}
	}
	if !asJSON {
		fmt.Fprintln(io.Out, "no histories of this machine's own to index ('deja sources' says where deja looks)")
		printIndexTeam(io, teamRep.SyncReport)
	}
	return nil
}

func printIndexTeam(io *IO, rep team.SyncReport) {
	fmt.Fprintf(io.Out, "team: published %s and %s, folded %s and %s\n",
		words.Count(rep.Published.Turns, "turn"), words.Count(rep.Published.Tombstones, "tombstone"),
		words.Count(rep.Folded.Turns, "turn"), words.Count(rep.Folded.Tombstones, "tombstone"))
}

// defaultPaths are the discovered histories and every history indexed
// before (a file given once on the command line stays up to date).
func defaultPaths(ctx context.Context, cfg config.Config, sto *store.Store) ([]string, []string, error) {
	found, warnings := discoverSources(cfg)
	known, err := sto.KnownFiles(ctx)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	var paths []string
	for _, s := range found {
		if !seen[s.Path] {
			seen[s.Path] = true
			paths = append(paths, s.Path)
		}
		// A history found only because deja runs in its project is
		// remembered, so 'deja index' run anywhere finds it again.
		if s.Harness == aider.Name && foundOnlyHere(s.Source) {
			if err := recordProject(filepath.Join(cfg.ConfigDir, "aider-projects"), filepath.Dir(s.Path)); err != nil {
				warnings = append(warnings, err.Error())
			}
		}
	}
	for _, p := range known {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return paths, warnings, nil
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Millisecond)
}

// progressBar draws index progress on a terminal's stderr, one line
// redrawn in place; off a terminal it draws nothing, and the run's summary
// is the one line it prints.
type progressBar struct {
	io    *IO
	drawn bool
	last  time.Time
	start time.Time
	// bytes is how far the current file was read, kept through its
	// embedding phases, which do not move it.
	file  string
	bytes int64
}

func newProgressBar(io *IO) *progressBar { return &progressBar{io: io, start: time.Now()} }

func (b *progressBar) update(p index.Progress) {
	if !b.io.ErrTTY {
		return
	}
	if p.File != b.file {
		b.file, b.bytes = p.File, 0
	}
	if p.FileBytes > b.bytes {
		b.bytes = p.FileBytes
	}
	p.FileBytes = b.bytes
	if time.Since(b.last) < 80*time.Millisecond {
		return
	}
	b.last = time.Now()
	fmt.Fprintf(b.io.Err, "\r\033[K%s", progressLine(p, time.Since(b.start)))
	b.drawn = true
}

func (b *progressBar) done() {
	if b.drawn {
		fmt.Fprint(b.io.Err, "\r\033[K")
	}
}

// progressLine is one line of progress, under 80 columns: the phase, a bar
// of the whole run, the file and how far into it, and the turns written and
// their rate. The bar is full only when the work is: a file counts as done
// once its last window is written, and the fill of missing vectors goes by
// turns.
func progressLine(p index.Progress, elapsed time.Duration) string {
	frac := 0.0
	var files, name, amount string
	switch {
	case p.Phase == "filling" && p.Total > 0:
		frac = float64(p.Done) / float64(p.Total)
		amount = fmt.Sprintf("%d/%d turns lacking vectors", p.Done, p.Total)
	case p.Files > 0:
		in := 0.0
		if p.FileSize > 0 {
			in = min(float64(p.FileBytes)/float64(p.FileSize), 0.99)
		}
		frac = (float64(p.FilesDone) + in) / float64(p.Files)
		files = fmt.Sprintf("%d/%d", min(p.FileIndex+1, p.Files), p.Files)
		name = p.File
		switch {
		case p.Phase == "embedding" && p.Total > 0:
			amount = fmt.Sprintf("%d/%d to embed", p.Done, p.Total)
		case p.FileSize > 0:
			amount = megabytes(p.FileBytes, p.FileSize)
		}
	}
	frac = min(frac, 1)
	if p.Phase != "filling" && p.FilesDone < p.Files {
		frac = min(frac, 0.99)
	}
	const width = 10
	filled := int(frac * width)
	head := fmt.Sprintf("%-9s [%s%s] %3d%%", p.Phase, strings.Repeat("=", filled), strings.Repeat(" ", width-filled), int(frac*100))
	parts := []string{head}
	if files != "" {
		parts = append(parts, files)
	}
	tail := amount
	if p.Turns > 0 {
		tail += " · " + words.Count(p.Turns, "turn")
		rate := ""
		if s := elapsed.Seconds(); s >= 1 {
			rate = fmt.Sprintf(" %.0f/s", float64(p.Turns)/s)
		}
		// The rate goes first when the line would not fit.
		if utf8.RuneCountInString(strings.Join(append(parts, tail+rate), " "))+9 <= 79 {
			tail += rate
		}
	}
	if name != "" {
		// The name takes what the 79 columns leave, at least 8.
		room := 79 - utf8.RuneCountInString(strings.Join(append(parts, tail), " ")) - 1
		parts = append(parts, shortName(name, max(room, 8)))
	}
	if tail != "" {
		parts = append(parts, tail)
	}
	return strings.Join(parts, " ")
}

// shortName is a file's base name cut to n runes, the end kept.
func shortName(path string, n int) string {
	name := []rune(filepath.Base(path))
	if path == "" {
		return ""
	}
	if len(name) > n {
		return "…" + string(name[len(name)-n+1:])
	}
	return string(name)
}

// megabytes is "14.2/29.0 MB" (or kB for small files).
func megabytes(done, total int64) string {
	if total < 1<<20 {
		return fmt.Sprintf("%d/%d kB", done>>10, max(total>>10, 1))
	}
	return fmt.Sprintf("%.1f/%.1f MB", float64(done)/(1<<20), float64(total)/(1<<20))
}

// foundOnlyHere reports whether an aider history was found in the
// project deja runs in and through no listed project.
func foundOnlyHere(s harness.Source) bool {
	here := false
	for _, r := range s.Reasons {
		switch aider.ReasonKind(r.Kind) {
		case aider.ReasonHere:
			here = true
		case aider.ReasonProject:
			return false
		}
	}
	return here
}
